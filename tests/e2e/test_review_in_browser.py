"""Per-call review in Chromium against the real agent server: one test per line of the reviewer
checklist (two same-tool calls stay distinct, edits run, decided calls stay decided after a reload,
unanswered calls stay pending, a reconnect reads the server, the order rule, stale approvals). Approved
work orders are rows of the work-order database the server files into (SITEWALK_WORKORDERS_DB)."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import PAGE_TIMEOUT_MS, wait_until_ready
from playwright.sync_api import expect

from sitewalk_agent.workorders import WorkOrder, WorkOrders

SUBJECTS = ("Loose bolt on the east rail", "Corroded drain cover")  # scripted_model.REVIEW_SUBJECTS


def _thread_id(app) -> str:
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def _state(app, thread_id: str) -> dict:
    response = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30)
    response.raise_for_status()
    return response.json()


def _reviews(state: dict) -> list[dict]:
    return [i for i in state["interrupts"] if (i.get("value") or {}).get("type") == "tool_approval"]


def _answers(state: dict) -> dict[str, dict]:
    return {m["tool_call_id"]: m for m in state["values"]["messages"] if m.get("type") == "tool"}


def _runs(app, thread_id: str) -> list[dict]:
    return httpx.get(f"{app.server_url}/threads/{thread_id}/runs", timeout=30).json()


def _orders(db, thread_id: str) -> list[WorkOrder]:
    """The work orders the thread filed (each row says which thread filed it)."""
    return [r for r in WorkOrders(db).orders() if r["thread_id"] == thread_id]


def _start(app, name: str, script: str, cards: int) -> str:
    # A fresh inspection each run: the server's store (archive, work orders) outlives a test run.
    inspection_id = f"{name}-{uuid.uuid4().hex[:8]}"
    app.open()
    app.start(inspection_id, f"script: {script}")
    _wait_cards(app, cards)
    return _thread_id(app)


def _wait_cards(app, count: int) -> None:
    expect(app.page.locator("#sw-reviews article.sw-review")).to_have_count(count, timeout=60_000)


def _card(app, text: str):
    return app.page.locator("#sw-reviews article.sw-review", has_text=text)


def _tool_card(app, tool: str):
    """The card of the one pending call of `tool` (the card names it in words; its code name is its data)."""
    return app.page.locator(f"#sw-reviews article.sw-review[data-tool='{tool}']")


def _send(app, cards_after: int) -> None:
    app.page.locator("#sw-reviews [data-review-action='send']").click()
    _wait_cards(app, cards_after)


def _shown_ids(app) -> set[str]:
    return set(app.page.locator("#sw-reviews article.sw-review").evaluate_all(
        "(nodes) => nodes.map((n) => n.dataset.interruptId)"))


def test_two_pending_calls_of_the_same_tool_stay_distinct(app, workorders_db):
    thread_id = _start(app, "inspection-71", "review", 3)
    pending = {i["value"]["args"].get("subject"): i for i in _reviews(_state(app, thread_id))
               if i["value"]["name"] == "create_work_order"}
    assert set(pending) == set(SUBJECTS)
    for subject, interrupt in pending.items():  # each card carries its own interrupt, call and args
        card = _card(app, subject)
        assert card.get_attribute("data-interrupt-id") == interrupt["id"]
        assert card.get_attribute("data-tool-call-id") == interrupt["value"]["tool_call_id"]
        assert card.get_attribute("data-tool") == "create_work_order"
        # in words: the action as a person names it, each argument under its contract title
        assert card.locator(".sw-review-tool").inner_text() == "Raise a work order"
        fields = dict(zip(card.locator(".sw-review-fields dt").all_inner_texts(),
                          card.locator(".sw-review-fields dd").all_inner_texts(), strict=True))
        assert fields["What to repair"] == subject and "create_work_order" not in card.inner_text()
        raw = card.locator(".sw-review-args")  # the raw JSON, one tap away
        assert not raw.is_visible()
        card.locator(".sw-review-json-view > summary").click()
        expect(raw).to_be_visible()
        assert json.loads(raw.inner_text()) == interrupt["value"]["args"]
    app.screenshot("review-cards")

    drain = pending[SUBJECTS[1]]
    _card(app, SUBJECTS[1]).get_by_role("button", name="Approve").click()
    _send(app, 2)
    state = _state(app, thread_id)
    answers = _answers(state)
    drain_call = drain["value"]["tool_call_id"]
    assert drain_call in answers and SUBJECTS[1] in answers[drain_call]["content"]
    assert pending[SUBJECTS[0]]["value"]["tool_call_id"] not in answers  # the other order did not run
    assert _shown_ids(app) == {i["id"] for i in _reviews(state)} and drain["id"] not in _shown_ids(app)
    [row] = _orders(workorders_db, thread_id)  # only the approved order is in the ticket system
    assert row["subject"] == SUBJECTS[1] and row["id"] in answers[drain_call]["content"]


def test_an_edited_call_runs_with_the_edited_args(app, workorders_db):
    thread_id = _start(app, "inspection-72", "review", 3)
    card = _card(app, SUBJECTS[0])
    call_id = card.get_attribute("data-tool-call-id")
    card.locator(".sw-review-editor > summary").click()  # the form generated from the tool's schema
    card.get_by_label("What to repair").fill("Replace the east rail bolt")
    card.get_by_label("Priority").select_option("urgent")
    card.get_by_role("button", name="Use these arguments").click()
    edited = _card(app, "Replace the east rail bolt")
    assert "revision 2 (edited)" in edited.locator(".sw-review-revision").inner_text()
    _send(app, 2)
    answer = _answers(_state(app, thread_id))[call_id]
    assert "Replace the east rail bolt" in answer["content"]  # what ran is the edited order
    assert json.loads(answer["content"].split("Tool response:", 1)[-1].strip())["result"]["subject"] == \
        "Replace the east rail bolt"
    [row] = _orders(workorders_db, thread_id)
    assert (row["subject"], row["priority"]) == ("Replace the east rail bolt", "urgent")
    # The call board shows what ran (the edited args) and the order it filed, not what was proposed.
    call = app.page.locator(f"#sw-tool-calls li[data-call-id='{call_id}'][data-state='succeeded']")
    expect(call.locator(".sw-tool-detail")).to_have_text(f"edited by the reviewer; work order {row['id']} filed",
                                                         timeout=30_000)
    shown = json.loads(call.locator(".sw-tool-args").inner_text())
    assert (shown["subject"], shown["priority"]) == ("Replace the east rail bolt", "urgent")
    # Named as the review card named it, the code name beside it (issue 29).
    assert call.locator(".sw-tool-name").inner_text() == "Raise a work order"
    assert call.locator(".sw-tool-code").inner_text() == "create_work_order" == call.get_attribute("data-tool")
    # Once every card is decided, the agent reports the edit as an edit, not as "not run".
    _card(app, SUBJECTS[1]).get_by_role("button", name="Approve").click()
    _tool_card(app, "notify_site_manager").get_by_role("button", name="Approve").click()
    _send(app, 0)
    said = app.page.locator("#sw-transcript p", has_text="as the reviewer edited it")
    expect(said).to_contain_text(f"work order {row['id']}", timeout=60_000)
    assert "create_work_order not run" not in app.page.locator("#sw-transcript").inner_text()
    app.screenshot("review-edited-ran")


def test_an_edit_the_server_refuses_is_named_on_its_card_and_can_be_decided_again(app, workorders_db):
    """Another client (an old one, a forged request) sends an edit that breaks the contract: the server refuses
    it without failing the run; the page, reloaded, shows the refusal on the card, typed, with the field."""
    thread_id = _start(app, "inspection-78", "review", 3)
    order = next(i for i in _reviews(_state(app, thread_id)) if i["value"]["args"].get("subject") == SUBJECTS[1])
    bad = {"type": "edit", "args_revision": 1, "args_hash": order["value"]["args_hash"],
           "edited_action": {"name": "create_work_order", "args": {**order["value"]["args"], "priority": "medium"}}}
    httpx.post(f"{app.server_url}/threads/{thread_id}/runs/wait", timeout=60,
               json={"assistant_id": "inspection", "command": {"resume": {order["id"]: bad}}}).raise_for_status()
    assert httpx.get(f"{app.server_url}/threads/{thread_id}", timeout=30).json()["status"] == "interrupted"
    app.page.reload()
    wait_until_ready(app.page, timeout_ms=PAGE_TIMEOUT_MS)
    _wait_cards(app, 3)  # the call is still pending review
    card = _card(app, SUBJECTS[1])
    refusal = card.locator(".sw-review-refused")
    expect(refusal).to_have_attribute("data-code", "invalid_edit", timeout=30_000)
    assert refusal.get_attribute("data-field") == "priority" and "priority" in refusal.inner_text()
    assert card.get_attribute("data-interrupt-id") != order["id"]  # asked again, under a new id
    app.screenshot("review-invalid-edit")
    assert _orders(workorders_db, thread_id) == []  # nothing ran
    card.get_by_role("button", name="Approve").click()
    _send(app, 2)
    assert [r["subject"] for r in _orders(workorders_db, thread_id)] == [SUBJECTS[1]]


def test_a_rejected_call_says_the_reviewer_rejected_it_and_why_never_failed(app):
    thread_id = _start(app, "inspection-70", "review", 3)
    notice = _tool_card(app, "notify_site_manager")
    call_id = notice.get_attribute("data-tool-call-id")
    assert notice.locator(".sw-review-tool").inner_text() == "Message the site manager"
    notice.locator(".sw-review-reason").fill("the manager is on leave")
    notice.get_by_role("button", name="Reject").click()
    _send(app, 2)
    assert _answers(_state(app, thread_id))[call_id]["status"] == "error"  # what LangChain tells the model
    call = app.page.locator(f"#sw-tool-calls li[data-call-id='{call_id}']")
    for _ in ("as it happened", "after a reload, drawn from the thread's state"):
        expect(call).to_have_attribute("data-state", "rejected", timeout=30_000)
        text = call.inner_text()
        assert "rejected by the reviewer" in text and "the manager is on leave" in text and "failed" not in text
        app.page.reload()
        wait_until_ready(app.page, timeout_ms=PAGE_TIMEOUT_MS)


def test_a_decided_call_is_not_approvable_after_a_reload(app):
    thread_id = _start(app, "inspection-73", "review", 3)
    decided = _card(app, SUBJECTS[0]).get_attribute("data-interrupt-id")
    _card(app, SUBJECTS[0]).get_by_role("button", name="Approve").click()
    _send(app, 2)
    app.page.reload()
    wait_until_ready(app.page, timeout_ms=PAGE_TIMEOUT_MS)
    _wait_cards(app, 2)
    assert decided not in _shown_ids(app)
    assert _shown_ids(app) == {i["id"] for i in _reviews(_state(app, thread_id))}
    assert app.page.locator(f"#sw-reviews [data-interrupt-id='{decided}']").count() == 0


def test_an_unanswered_call_stays_pending(app):
    thread_id = _start(app, "inspection-74", "review", 3)
    for subject in SUBJECTS:
        _card(app, subject).get_by_role("button", name="Approve").click()
    notice = _tool_card(app, "notify_site_manager")
    notice_call = notice.get_attribute("data-tool-call-id")
    _send(app, 1)
    state = _state(app, thread_id)
    assert [i["value"]["name"] for i in _reviews(state)] == ["notify_site_manager"]
    assert notice_call not in _answers(state)  # never a default yes
    assert "Pending" in _tool_card(app, "notify_site_manager").locator(".sw-review-choice").inner_text()
    app.page.reload()
    wait_until_ready(app.page, timeout_ms=PAGE_TIMEOUT_MS)
    _wait_cards(app, 1)
    assert _tool_card(app, "notify_site_manager").get_attribute("data-tool-call-id") == notice_call


def test_after_a_reconnect_the_review_state_comes_from_the_server(app, workorders_db):
    thread_id = _start(app, "inspection-75", "review", 3)
    bolt = next(i for i in _reviews(_state(app, thread_id)) if i["value"]["args"].get("subject") == SUBJECTS[0])
    app.page.context.set_offline(True)
    # Meanwhile someone else decides the bolt's order on the server.
    decision = {"type": "approve", "args_revision": bolt["value"]["args_revision"],
                "args_hash": bolt["value"]["args_hash"]}
    httpx.post(f"{app.server_url}/threads/{thread_id}/runs/wait", timeout=60,
               json={"assistant_id": "inspection", "command": {"resume": {bolt["id"]: decision}}}).raise_for_status()
    app.page.context.set_offline(False)
    # This page still shows the bolt's card; its decision is checked against the server before sending.
    for subject in SUBJECTS:
        _card(app, subject).get_by_role("button", name="Approve").click()
    _send(app, 1)
    notice = app.page.locator(f"#sw-reviews .sw-review-refused[data-interrupt-id='{bolt['id']}']")
    assert notice.get_attribute("data-code") == "already_decided"
    state = _state(app, thread_id)
    orders = [m for m in state["values"]["messages"] if m.get("type") == "tool" and m["name"] == "create_work_order"]
    assert len(orders) == 2  # the bolt's order ran once (the other reviewer's), the drain's once
    assert sorted(r["subject"] for r in _orders(workorders_db, thread_id)) == sorted(SUBJECTS)
    [resume] = app.watch.resume_commands(thread_id)  # the page's one resume: the drain's, not the bolt's again
    assert bolt["id"] not in resume
    assert _shown_ids(app) == {i["id"] for i in _reviews(state)}


def test_the_order_rule_holds_when_the_cards_are_answered_in_the_wrong_order(app):
    thread_id = _start(app, "inspection-76", "photos", 2)
    delete_call = _tool_card(app, "delete_photos").get_attribute("data-tool-call-id")
    _tool_card(app, "delete_photos").get_by_role("button", name="Approve").click()  # delete first
    _send(app, 1)
    refused = json.loads(_answers(_state(app, thread_id))[delete_call]["content"])
    assert refused["ok"] is False and refused["error"]["detail"]["rule"] == "archive_before_delete"
    app.page.wait_for_selector("#sw-tool-calls li[data-tool='delete_photos'][data-state='failed']")
    _tool_card(app, "archive_photos").get_by_role("button", name="Approve").click()
    _send(app, 0)
    answers = _answers(_state(app, thread_id))
    assert json.loads(answers[delete_call]["content"])["ok"] is False  # approving later did not delete anything
    assert sum(1 for m in answers.values() if m["name"] == "delete_photos") == 1


def test_a_stale_approval_is_refused(app):
    thread_id = _start(app, "inspection-77", "review", 3)
    card = _card(app, SUBJECTS[0])
    iid = card.get_attribute("data-interrupt-id")
    runs_before = len(_runs(app, thread_id))
    # The card as drawn from other args than the server now holds (an older revision).
    card.evaluate("(node) => { node.dataset.argsHash = '0'.repeat(64); }")
    card.get_by_role("button", name="Approve").click()
    app.page.locator("#sw-reviews [data-review-action='send']").click()
    refusal = app.page.locator(f"#sw-reviews article[data-interrupt-id='{iid}'] .sw-review-refused")
    refusal.wait_for()
    assert refusal.get_attribute("data-code") == "stale_revision"
    assert len(_runs(app, thread_id)) == runs_before  # nothing was sent, nothing ran
    state = _state(app, thread_id)
    assert iid in {i["id"] for i in _reviews(state)} and card.get_attribute("data-tool-call-id") not in _answers(state)
