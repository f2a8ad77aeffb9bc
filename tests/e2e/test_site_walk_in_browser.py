"""The site walk in Chromium against the real agent server: its two questions answered on cards, its steps
nested in the timeline, a fork between the questions, an answer changed at a step, the old branch readable."""

from __future__ import annotations

import uuid

DRAFT = {"site": "Pier 6, east quay", "inspector": "Ana Ruiz", "findings": ["Cracked kerb"], "risk": "medium"}
QUESTION = "#sw-questions .sw-question"
NESTED = "#sw-timeline .sw-nested li"
CARD = "#sw-screen [data-sw-id='card']"


def _walk(app, bolts="3"):
    """Start a `script: site-walk` inspection and answer: the handrail is secure, `bolts` are corroded."""
    inspection = f"inspection-91-{uuid.uuid4().hex[:6]}"
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: site-walk")
    page = app.page
    first = page.locator(f"{QUESTION}[data-question-id='handrail_secure']")
    first.wait_for()
    assert first.locator("[data-question-answer='yes']").is_visible() and first.locator("input").count() == 0
    first.locator("[data-question-answer='yes']").click()
    second = page.locator(f"{QUESTION}[data-question-id='corroded_bolts']")
    second.wait_for()
    assert page.locator(QUESTION).count() == 1  # one question at a time
    assert second.locator("input[type='number']").is_visible()
    assert second.locator("[data-question-answer='yes']").count() == 0
    second.locator("input").fill(bolts)
    second.locator("[data-question-answer='number']").click()
    page.locator(CARD, has_text=f"Corroded bolts: {bolts}").wait_for()
    page.locator(QUESTION).first.wait_for(state="detached")
    return page


def _nested_step(page, text):
    step = page.locator(NESTED, has_text=text)
    step.first.wait_for()
    return step.first


def test_the_two_questions_are_answered_on_cards_and_the_walk_nests_in_the_timeline(app):
    page = _walk(app)
    assert "Handrail secure: yes" in page.locator(CARD).inner_text()
    host = page.locator("#sw-timeline > li", has=page.locator(".sw-nested")).first
    assert "Waiting for your answer" in host.locator(".sw-step-open").first.inner_text()
    titles = host.locator(".sw-nested .sw-step-open").all_inner_texts()
    assert titles[:3] == ["Asked: How many bolts are corroded? — 3", "Asked: Is the handrail secure? — yes",
                          "Waiting for your answer: Is the handrail secure?"]
    assert page.locator(f"{NESTED}[data-kind='answer']").count() == 2
    app.screenshot("walk-nested")
    _nested_step(page, "— yes").locator(".sw-step-open").click()  # a walk step, read-only: its answers
    details = page.locator(".sw-step-view .sw-step-answers")
    details.wait_for()
    assert "Is the handrail secure? yes" in details.inner_text() and "Next: ask_corroded_bolts" in page.locator(
        ".sw-step-view").inner_text()


def test_a_fork_between_the_questions_asks_only_the_second_and_the_old_branch_stays_readable(app):
    page = _walk(app)
    _nested_step(page, "— yes").locator("[data-sw-travel='ask-again']").click()
    page.locator(".sw-restore-preview").wait_for()
    assert page.locator(".sw-restore-steps li").count() >= 3
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    again = page.locator(f"{QUESTION}[data-question-id='corroded_bolts']")
    again.wait_for()
    assert page.locator(f"{QUESTION}[data-question-id='handrail_secure']").count() == 0
    app.screenshot("asked-again")
    again.locator("input").fill("7")
    again.locator("[data-question-answer='number']").click()
    page.locator(CARD, has_text="Corroded bolts: 7").wait_for()
    assert "Corroded bolts: 3" not in page.locator(CARD).inner_text()
    _nested_step(page, "— 7")
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")
    assert "— 7" in page.locator("#sw-branches [data-live='1']").inner_text()

    page.click("#sw-branches [data-live='0']")  # the old branch: its own walk and screen, read-only
    page.locator(".sw-step-view .sw-step-screen", has_text="Corroded bolts: 3").wait_for()
    assert page.locator(f"{NESTED}[data-kind='answer']", has_text="— 3").count() == 1
    assert page.locator(f"{NESTED}", has_text="— 7").count() == 0
    app.screenshot("old-branch-walk")


def test_an_answer_changed_at_its_step_is_not_asked_again_and_a_bad_value_keeps_what_was_typed(app):
    page = _walk(app, bolts="2")
    _nested_step(page, "— 2").locator("[data-sw-travel='change-answer']").click()
    field = page.locator(".sw-restore-preview input#sw-edit-text[type='number']")
    field.wait_for()
    assert field.input_value() == "2"
    field.fill("-4")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator(".sw-restore-preview .sw-edit-error", has_text="invalid_edit").wait_for()
    assert page.locator(".sw-restore-preview input#sw-edit-text").input_value() == "-4"  # nothing typed is lost
    page.locator(".sw-restore-preview input#sw-edit-text").fill("5")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator(CARD, has_text="Corroded bolts: 5").wait_for()
    _nested_step(page, "— 5 (changed)")
    assert page.locator(QUESTION).count() == 0  # changed, not asked
