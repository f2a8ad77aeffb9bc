"""The review card's editor on a phone (390x844), in Chromium against the real agent server: a form generated
from the tool's JSON Schema, a choice list for the priority that cannot hold a value outside the contract, the
raw JSON as an advanced option whose wrong field is named under it with nothing sent, and a good edit filed."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from conftest_helpers import PHONE
from playwright.sync_api import Error, expect

from sitewalk_agent.workorders import WorkOrders

BOLT, DRAIN = "Loose bolt on the east rail", "Corroded drain cover"  # scripted_model.REVIEW_SUBJECTS
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def _state(app, thread_id: str) -> dict:
    response = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30)
    response.raise_for_status()
    return response.json()


def _thread(app, thread_id: str) -> dict:
    return httpx.get(f"{app.server_url}/threads/{thread_id}", timeout=30).json()


def _pending(state: dict) -> dict[str, dict]:
    return {i["value"]["tool_call_id"]: i for i in state["interrupts"]
            if (i.get("value") or {}).get("type") == "tool_approval"}


def _cards(app):
    return app.page.locator("#sw-reviews article.sw-review")


def _card(app, text: str):
    return app.page.locator("#sw-reviews article.sw-review", has_text=text)


@pytest.fixture
def review(app):
    """The `script: review` inspection on a phone, waiting on its three reviews; its thread id."""
    app.page.set_viewport_size(PHONE)
    app.open()
    app.start(f"inspection-79-{uuid.uuid4().hex[:8]}", "script: review")
    expect(_cards(app)).to_have_count(3, timeout=60_000)
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def test_the_editor_is_a_form_whose_priority_is_a_choice_list_of_the_contract(app, review):
    card = _card(app, BOLT)
    card.locator(".sw-review-editor > summary").click()
    priority = card.get_by_label("Priority")
    assert priority.evaluate("(node) => node.tagName") == "SELECT"
    assert priority.locator("option").evaluate_all("(os) => os.map((o) => o.value)") == \
        ["low", "normal", "high", "urgent"]
    assert priority.input_value() == "high"  # the proposed value
    with pytest.raises(Error):  # a value outside the contract is not there to choose
        priority.select_option("medium", timeout=2_000)
    assert priority.input_value() == "high"
    assert card.get_by_label("What to repair").evaluate("(node) => node.type") == "text"
    assert not card.locator(".sw-review-json").is_visible()  # the raw JSON is the advanced option, folded
    assert app.page.evaluate(NO_SIDEWAYS_SCROLL)
    app.screenshot("review-form")


def test_a_wrong_raw_json_value_is_named_nothing_is_sent_then_a_good_form_edit_is_filed(app, review, workorders_db):
    thread_id = review
    card = _card(app, BOLT)
    bolt_call = card.get_attribute("data-tool-call-id")
    args = json.loads(card.locator(".sw-review-args").text_content() or "")
    runs_before = len(httpx.get(f"{app.server_url}/threads/{thread_id}/runs", timeout=30).json())
    card.locator(".sw-review-editor > summary").click()
    card.locator(".sw-review-raw > summary").click()
    typed = json.dumps({**args, "priority": "medium"})
    card.locator(".sw-review-json").fill(typed)
    card.get_by_role("button", name="Use this JSON").click()
    error = card.locator(".sw-review-raw .sw-review-edit-error")
    expect(error).to_contain_text("priority: must be one of low, normal, high, urgent")
    assert card.locator(".sw-review-json").input_value() == typed  # kept, to be corrected
    assert card.get_attribute("data-decision") == ""  # nothing recorded for this card
    assert app.page.evaluate(NO_SIDEWAYS_SCROLL)
    app.screenshot("review-edit-refused")

    app.page.locator("#sw-reviews [data-review-action='send']").click()  # nothing fits: nothing is sent
    app.page.wait_for_timeout(500)
    assert app.watch.resume_commands(thread_id) == []
    assert len(httpx.get(f"{app.server_url}/threads/{thread_id}/runs", timeout=30).json()) == runs_before
    state = _state(app, thread_id)
    assert _thread(app, thread_id)["status"] == "interrupted" and len(_pending(state)) == 3
    expect(error).to_be_visible()  # still said under the editor after Send

    card.get_by_label("Priority").select_option("urgent")  # the same edit in the form: it fits
    card.get_by_role("button", name="Use these arguments").click()
    expect(card).to_have_attribute("data-decision", "edit")
    assert "revision 2 (edited)" in card.locator(".sw-review-revision").inner_text()
    assert card.locator(".sw-review-edit-error").count() == 0
    _card(app, DRAIN).get_by_role("button", name="Approve").click()
    app.page.locator("#sw-reviews [data-review-action='send']").click()
    expect(_cards(app)).to_have_count(1, timeout=60_000)

    [resume] = app.watch.resume_commands(thread_id)
    [decision] = [d for d in resume.values() if d["type"] == "edit"]
    assert decision["edited_action"]["args"] == {**args, "priority": "urgent"}
    state = _state(app, thread_id)
    assert bolt_call not in _pending(state)
    orders = {r["subject"]: r for r in WorkOrders(workorders_db).orders() if r["thread_id"] == thread_id}
    assert orders[BOLT]["priority"] == "urgent" and orders[DRAIN]["priority"] == "high"
