"""The site walk in Chromium against the real agent server: its two questions answered on cards, its steps
nested in the timeline, a fork between the questions, an answer changed at a step, the old branch readable; a second
walk in one message refused (typed, a failed call), and the walk in the audit panel."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import PHONE
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

DRAFT = {"site": "Pier 6, east quay", "inspector": "Ana Ruiz", "findings": ["Cracked kerb"], "risk": "medium"}
QUESTION = "#sw-questions .sw-question"
NESTED = "#sw-timeline .sw-nested li"
CARD = "#sw-screen [data-sw-id='card']"


def _walk(app, bolts="3", refused=None, note="script: site-walk"):
    """Start a `script: site-walk` inspection and answer: the handrail is secure, `bolts` are corroded
    (after `refused`, a count that does not fit, which the card refuses and keeps as typed)."""
    inspection = f"inspection-91-{uuid.uuid4().hex[:6]}"
    app.open()
    app.seed_draft(inspection, DRAFT)
    _keep_statuses(app.page)
    app.start(inspection, note=note)
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
    if refused is not None:
        second.locator("input").fill(refused)
        second.locator("[data-question-answer='number']").click()
        second.locator(".sw-question-refused[data-code='invalid_answer']").wait_for()
        assert second.locator("input").input_value() == refused  # drawn again with the refusal: nothing lost
    second.locator("input").fill(bolts)
    second.locator("[data-question-answer='number']").click()
    _shown(app, f"Corroded bolts: {bolts}")
    page.locator(QUESTION).first.wait_for(state="detached")
    return page


def _keep_statuses(page):
    """Every status line the app shows, and each drawing of the question cards, kept in the page: a failure
    says what the app said and drew on the way."""
    page.evaluate("""() => { window.__statuses = []; window.__cards = [];
      const s = document.getElementById('sw-status');
      new MutationObserver(() => window.__statuses.push(s.textContent)).observe(s,
        {subtree: true, childList: true, characterData: true});
      new MutationObserver((ms) => ms.forEach((m) => { if (m.target.id === 'sw-questions')
        window.__cards.push([...m.target.querySelectorAll('.sw-question')].map((q) => q.dataset.questionId)); }))
        .observe(document.body, {subtree: true, childList: true}); }""")


def _shown(app, text):
    """Wait for the screen's card to show `text`; when it does not, say what the page showed instead (the
    card, the question cards and what was typed in them, the statuses, the timeline's notice, the answers
    sent, console errors) and what the server has (the card's findings on record, the last messages, the runs)."""
    page = app.page
    try:
        page.locator(CARD, has_text=text).wait_for()
    except PlaywrightTimeout as exc:
        typed = page.locator("#sw-questions input").evaluate_all("(inputs) => inputs.map((i) => i.value)")
        said = page.evaluate("[window.__statuses || [], window.__cards || []]")
        raise AssertionError(
            f"{text!r} not on the card; the screen shows {page.locator('#sw-screen').inner_text()!r}; question "
            f"cards drawn {said[1]}, on screen {page.locator(QUESTION).all_inner_texts()} (typed: {typed}); "
            f"statuses {said[0][-6:]}; timeline notice {page.locator('#sw-timeline-notice').inner_text()!r}; "
            f"answers sent {app.watch.resume_commands(_thread(app))[-2:]}; "
            f"console errors {app.watch.console_errors[-3:]}; the server has {_on_record(app)}") from exc


def _thread(app):
    return json.loads(app.local_storage("sitewalk:current-thread") or "{}").get("thread_id", "")


def _on_record(app):
    """The card's findings the server has on record, its last messages and its runs."""
    thread = _thread(app)
    state = httpx.get(f"{app.server_url}/threads/{thread}/state", timeout=10).json()
    runs = httpx.get(f"{app.server_url}/threads/{thread}/runs", timeout=10).json()
    values = state.get("values") or {}
    card = ((values.get("ui_spec") or {}).get("elements") or {}).get("card") or {}
    return {"findings": (card.get("props") or {}).get("findings"),
            "messages": [str(m.get("content"))[:100] for m in values.get("messages") or []][-2:],
            "runs": [r.get("status") for r in runs]}


def _hold_state_reads(page, passing):
    """Hold the page's reads of the thread's state, after the first `passing` of them, until the returned
    function is called."""
    page.evaluate("""(passing) => { const fetched = window.fetch;
      window.__stateReads = new Promise((resolve) => { window.__releaseStateReads = resolve; });
      window.fetch = async (resource, options) => {
        const url = String(resource && resource.url || resource);
        if (url.endsWith('/state') && (options?.method || 'GET') === 'GET' && passing-- <= 0)
          await window.__stateReads;
        return fetched(resource, options); }; }""", passing)
    return lambda: page.evaluate("window.__releaseStateReads()")


def _nested_step(page, text):
    step = page.locator(NESTED, has_text=text)
    step.first.wait_for()
    return step.first


def test_the_two_questions_are_answered_on_cards_and_the_walk_nests_in_the_timeline(app):
    page = _walk(app, refused="-4")
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
    page.locator("#sw-audit-load").click()  # the walk is in the audit trail, with both answers and who gave them
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    walk = page.locator("#sw-audit-records li", has=page.locator(".sw-audit-what", has_text="site walk"))
    assert walk.count() == 1
    said = walk.locator(".sw-audit-outcome").inner_text()
    assert "Is the handrail secure? yes" in said and "How many bolts are corroded? 3" in said, said
    assert "Ana Ruiz (unauthenticated)" in walk.locator(".sw-audit-reviewer").inner_text()


def test_a_second_walk_in_one_message_is_listed_as_a_failed_call_with_its_typed_refusal(app):
    page = _walk(app, note="script: site-walk-twice")
    calls = page.locator("#sw-tool-calls li[data-tool='walk_site']")
    page.locator("#sw-tool-calls li[data-tool='walk_site'][data-state='failed']").wait_for()
    assert sorted(calls.evaluate_all("(cs) => cs.map((c) => c.dataset.state)")) == ["failed", "succeeded"]
    refused = page.locator("#sw-tool-calls li[data-tool='walk_site'][data-state='failed']").inner_text()
    assert "one_walk_at_a_time" in refused and "the walk already asked" in refused, refused
    assert page.locator(CARD).inner_text().count("Corroded bolts: 3") == 1  # walked once
    page.locator("#sw-audit-load").click()
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    rows = page.locator("#sw-audit-records li")
    assert rows.filter(has_text="failed:one_walk_at_a_time").count() == 1
    assert rows.filter(has=page.locator(".sw-audit-what", has_text="site walk")).count() == 1


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
    _shown(app, "Corroded bolts: 7")
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
    _shown(app, "Corroded bolts: 5")
    _nested_step(page, "— 5 (changed)")
    assert page.locator(QUESTION).count() == 0  # changed, not asked


def test_the_first_minute_without_a_draft_blank_draft_then_the_walk_then_done(app):
    """Start `script: site-walk` with nothing saved: the device starts a blank draft, its screen comes with
    empty fields, the walk's questions follow and their answers fill the card. Phone screenshots of each step."""
    inspection = f"inspection-92-{uuid.uuid4().hex[:6]}"
    app.open()
    page = app.page
    page.fill("#sw-inspection-id", inspection)
    app.screenshot("1-start-without-draft")
    _keep_statuses(page)
    app.begin(inspection, note="script: site-walk")
    first = page.locator(f"{QUESTION}[data-question-id='handrail_secure']")
    first.wait_for()
    card = page.locator(CARD)
    assert card.locator(".sw-card-site").inner_text().strip() == "Site"  # blank: fields to fill
    assert page.locator("#sw-screen [data-sw-id='inspector'] .sw-field-value").inner_text() == ""
    assert "so I started a blank one for you to fill in" in page.locator("#sw-transcript").inner_text()
    assert json.loads(app.idb_get(f"sitewalk:draft:{inspection}"))["site"] == ""  # the device holds it
    app.screenshot("2-blank-draft-screen")
    first.locator("[data-question-answer='yes']").click()
    second = page.locator(f"{QUESTION}[data-question-id='corroded_bolts']")
    second.locator("input").fill("2")
    app.screenshot("3-answer")
    second.locator("input").press("Enter")  # the phone keyboard's Go key sends it, as the Send button does
    _shown(app, "Corroded bolts: 2")
    app.wait_finished(inspection)
    assert "Handrail secure: yes" in card.inner_text()
    app.screenshot("4-done")


def test_an_answer_asked_again_can_then_be_changed_at_its_step(app):
    """Ask again between the questions, answer 7, then change that 7 to 12: the change's redraw reads the
    graph's checkpoint the asked-again run made (langgraph dev used to answer that read with 500).

    The change is confirmed while the page still reads the end of the run that answered 7 (its state reads
    held, as a slow network holds them): it waits for that, saying so where the preview was (on a phone's
    screen), and goes on; it is not refused."""
    app.page.set_viewport_size(PHONE)
    page = _walk(app)
    _nested_step(page, "— yes").locator("[data-sw-travel='ask-again']").click()
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    again = page.locator(f"{QUESTION}[data-question-id='corroded_bolts']")
    again.locator("input").fill("7")
    release = _hold_state_reads(page, passing=1)  # the answer's own check goes; the reads after its run wait
    again.locator("[data-question-answer='number']").click()
    _shown(app, "Corroded bolts: 7")
    _nested_step(page, "— 7").locator("[data-sw-travel='change-answer']").click()
    page.locator(".sw-restore-preview input#sw-edit-text").fill("12")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    waiting = page.locator("#sw-timeline-notice", has_text="Waiting for the page to finish the last run")
    waiting.wait_for()
    expect(waiting).to_be_in_viewport()
    release()
    _shown(app, "Corroded bolts: 12")
    _nested_step(page, "— 12 (changed)")
    assert page.locator(QUESTION).count() == 0  # changed, not asked
    assert not app.watch.console_errors
