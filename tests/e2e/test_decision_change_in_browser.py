"""Changing a review decision from the timeline, in Chromium against the real agent server: the step that
carries the decisions forks with another decision for one call, the preview says what happens to its work
order, the new branch shows the outcome, the old branch stays as it was, and the work-order database holds
exactly the rows the key rule says (same subject: the original comes back; another subject: a new order)."""

from __future__ import annotations

import json
import uuid

import httpx
from playwright.sync_api import expect

from sitewalk_agent.workorders import WorkOrder, WorkOrders

BOLT, DRAIN = "Loose bolt on the east rail", "Corroded drain cover"  # scripted_model.REVIEW_SUBJECTS
CARDS = "#sw-reviews article.sw-review"
DECIDED = "#sw-timeline li[data-kind='decision']"


def _thread_id(app) -> str:
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def _state(app, thread_id: str, checkpoint: str = "") -> dict:
    path = f"/threads/{thread_id}/state" + (f"/{checkpoint}" if checkpoint else "")
    response = httpx.get(app.server_url + path, timeout=30)
    response.raise_for_status()
    return response.json()


def _answer(state: dict, subject: str) -> dict:
    """The tool message of the work order call for `subject` (by the call's args in the AI message)."""
    messages = state["values"]["messages"]
    call = next(c["id"] for m in messages if m.get("type") == "ai" for c in m.get("tool_calls") or []
                if c["args"].get("subject") == subject)
    return next(m for m in messages if m.get("type") == "tool" and m["tool_call_id"] == call)


def _result(message: dict) -> dict:
    return json.loads(str(message["content"]).split("Tool response:", 1)[-1].strip())["result"]


def _orders(db, inspection: str) -> list[WorkOrder]:
    return [r for r in WorkOrders(db).orders() if r["key"].startswith(f"work-order:{inspection}:")]


def _decide_all(app, reject_notice: bool = True) -> None:
    """Approve both work orders and reject the notice (or approve it), in one send; wait for the step."""
    page = app.page
    for subject in (BOLT, DRAIN):
        page.locator(CARDS, has_text=subject).get_by_role("button", name="Approve").click()
    notice = page.locator(f"{CARDS}[data-tool='notify_site_manager']")
    if reject_notice:
        notice.locator(".sw-review-reason").fill("not yet")
        notice.get_by_role("button", name="Reject").click()
    else:
        notice.get_by_role("button", name="Approve").click()
    page.locator("#sw-reviews [data-review-action='send']").click()
    expect(page.locator(CARDS)).to_have_count(0, timeout=60_000)
    page.locator(DECIDED).first.wait_for(timeout=60_000)


def _start(app, name: str) -> tuple[str, str]:
    inspection = f"{name}-{uuid.uuid4().hex[:8]}"
    app.open()
    app.start(inspection, "script: review")
    expect(app.page.locator(CARDS)).to_have_count(3, timeout=60_000)
    return inspection, _thread_id(app)


def _open_change(app, subject: str):
    """Change your decision on the decided step, then that call's form."""
    page = app.page
    page.locator(DECIDED).first.locator("[data-sw-travel='change-decision']").click()
    dialog = page.locator("#sw-restore .sw-decision")
    dialog.locator(".sw-decision-calls li", has_text=subject).get_by_role("button", name="Change this decision").click()
    page.locator("#sw-decision-kind").wait_for()
    return dialog


def test_a_decision_changed_to_reject_forks_and_the_old_branch_keeps_its_order(app, workorders_db):
    inspection, thread_id = _start(app, "inspection-91")
    page = app.page
    _decide_all(app)
    title = page.locator(DECIDED).first.locator(".sw-step-open").inner_text()
    assert title == "Your decisions: create work order approved, create work order approved, " \
                    "notify site manager rejected"
    old_head = _state(app, thread_id)["checkpoint"]["checkpoint_id"]
    bolt_order = _result(_answer(_state(app, thread_id), BOLT))["work_order"]
    assert len(_orders(workorders_db, inspection)) == 2

    dialog = _open_change(app, BOLT)
    assert page.locator("#sw-decision-kind").input_value() == "reject"  # the other decision, offered first
    page.fill("#sw-decision-reason", "wrong rail, the west one")
    dialog.get_by_role("button", name="Show what this changes").click()
    effect = dialog.locator(".sw-decision-effects li[data-effect='not_filed']")
    effect.wait_for()
    assert effect.get_attribute("data-work-order") == bolt_order and "stays open" in effect.inner_text()
    drain = dialog.locator(".sw-decision-effects li[data-effect='asked_again']", has_text=DRAIN)
    assert "approving it again returns it" in drain.inner_text()
    assert dialog.locator(".sw-restore-steps li").count() >= 2  # the decided step and after stop being live
    app.screenshot("decision-preview")
    runs_before = len(httpx.get(f"{app.server_url}/threads/{thread_id}/runs", timeout=30).json())
    dialog.get_by_role("button", name="Send as a new branch").click()

    # the new branch: the bolt rejected, the other two asked again (never decided for the inspector)
    expect(page.locator(CARDS)).to_have_count(2, timeout=60_000)
    assert page.locator(CARDS, has_text=BOLT).count() == 0
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")
    rejected = _answer(_state(app, thread_id), BOLT)
    assert rejected["status"] == "error" and "wrong rail, the west one" in rejected["content"]
    assert len(httpx.get(f"{app.server_url}/threads/{thread_id}/runs", timeout=30).json()) == runs_before + 2
    _decide_all_remaining(app)
    assert "create_work_order not run" in page.locator("#sw-transcript").inner_text()
    drain_again = _result(_answer(_state(app, thread_id), DRAIN))
    assert drain_again["created"] is False  # the same order came back
    orders = _orders(workorders_db, inspection)
    assert len(orders) == 2 and {o["subject"] for o in orders} == {BOLT, DRAIN}  # nothing filed twice or undone
    assert next(o for o in orders if o["subject"] == BOLT)["status"] == "open"

    # the switcher names each branch for its decisions; the old one: its own steps, the bolt still approved
    expect(page.locator("#sw-branches [data-live='1']")).to_contain_text("create work order rejected")
    expect(page.locator("#sw-branches [data-live='0']")).to_contain_text("create work order approved, create work")
    page.click("#sw-branches [data-live='0']")
    old_title = "create work order approved, create work order approved"
    page.locator("#sw-timeline .sw-step-open", has_text=old_title).wait_for()
    assert _result(_answer(_state(app, thread_id, old_head), BOLT))["work_order"] == bolt_order
    app.screenshot("decision-old-branch")
    page.click("#sw-branches [data-live='1']")
    page.locator("#sw-timeline .sw-step-open", has_text="create work order rejected").wait_for()


def _decide_all_remaining(app) -> None:
    page = app.page
    page.locator(CARDS, has_text=DRAIN).get_by_role("button", name="Approve").click()
    notice = page.locator(f"{CARDS}[data-tool='notify_site_manager']")
    notice.locator(".sw-review-reason").fill("not yet")
    notice.get_by_role("button", name="Reject").click()
    page.locator("#sw-reviews [data-review-action='send']").click()
    expect(page.locator(CARDS)).to_have_count(0, timeout=60_000)
    page.locator("#sw-timeline .sw-step-open", has_text="create work order rejected").wait_for(timeout=60_000)


def test_an_edit_that_does_not_fit_is_refused_and_a_new_subject_files_a_new_order(app, workorders_db):
    inspection, thread_id = _start(app, "inspection-92")
    app.expect_console_error(r"status of 404")  # Aegra answers 404 for the new key's record (there is none yet)
    page = app.page
    _decide_all(app)
    history_before = len(httpx.post(f"{app.server_url}/threads/{thread_id}/history", json={"limit": 1000},
                                    timeout=30).json())
    dialog = _open_change(app, BOLT)
    page.select_option("#sw-decision-kind", "edit")
    priority = dialog.get_by_label("Priority")  # the form generated from the tool's schema: a choice list
    assert priority.locator("option").evaluate_all("(os) => os.map((o) => o.value)") == \
        ["low", "normal", "high", "urgent"]
    dialog.locator(".sw-decision-raw > summary").click()  # the raw JSON, the advanced option
    args = json.loads(page.locator("#sw-edit-text").input_value())
    page.fill("#sw-edit-text", json.dumps({**args, "priority": "whenever"}))
    dialog.get_by_role("button", name="Show what this changes").click()
    error = dialog.locator(".sw-edit-error")
    error.wait_for()
    assert "invalid_edit" in error.inner_text() and "priority: must be one of" in error.inner_text()
    assert "whenever" in page.locator("#sw-edit-text").input_value()  # what was typed is kept
    assert dialog.get_by_role("button", name="Send as a new branch").count() == 0

    dialog.locator(".sw-decision-raw > summary").click()  # folded: the form is what is sent
    dialog.get_by_label("What to repair").fill("Replace the east rail")
    dialog.get_by_role("button", name="Show what this changes").click()
    effect = dialog.locator(".sw-decision-effects li[data-effect='new']")
    effect.wait_for()
    assert "files a new work order" in effect.inner_text()
    assert len(httpx.post(f"{app.server_url}/threads/{thread_id}/history", json={"limit": 1000},
                          timeout=30).json()) == history_before  # previews changed nothing
    dialog.get_by_role("button", name="Send as a new branch").click()
    expect(page.locator(CARDS)).to_have_count(2, timeout=60_000)
    edited = _result(_answer(_state(app, thread_id), BOLT))
    assert edited["created"] is True and edited["subject"] == "Replace the east rail"
    assert sorted(o["subject"] for o in _orders(workorders_db, inspection)) == sorted(
        [BOLT, DRAIN, "Replace the east rail"])  # another substance, another key: one new row
