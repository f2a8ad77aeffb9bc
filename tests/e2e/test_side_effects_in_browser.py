"""Side effects are never repeated: a work order confirmed in the app (a ConfirmButton) or approved on its
review card (the reviewed create_work_order tool), then the thread replayed and forked on the real server
through its API, leaves exactly one row in the ticket system's database."""

from __future__ import annotations

import json
import uuid

import httpx
from playwright.sync_api import expect

from sitewalk_agent.workorders import WorkOrders

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Corroded bolt"], "risk": "high"}
AS_NODE = "HeadlessToolsMiddleware.after_model"  # the node whose update leads to the press
BOLT = "Loose bolt on the east rail"  # scripted_model.REVIEW_SUBJECTS[0]


def _thread_id(server: str, inspection: str) -> str:
    found = httpx.post(f"{server}/threads/search", json={"metadata": {"inspection_id": inspection}, "limit": 1},
                       timeout=30).json()
    return found[0]["thread_id"]


def _run(server: str, thread_id: str, **body) -> dict:
    """One run to its end (POST runs/wait), then the thread's state."""
    answer = httpx.post(f"{server}/threads/{thread_id}/runs/wait", json={"assistant_id": "inspection", **body},
                        timeout=120)
    assert answer.status_code == 200, answer.text
    return httpx.get(f"{server}/threads/{thread_id}/state", timeout=30).json()


def _press(server: str, thread_id: str, state: dict) -> dict:
    """Press the screen's confirm as the browser does (resume the waiting interrupt); the agent's answer."""
    [waiting] = state["interrupts"]
    assert waiting["value"]["type"] == "ui_action_request"
    identity = state["values"]["ui_spec"]["identity"]
    press = {"type": "ui_action", "action": "create_work_order", "identity": identity, "element_id": "confirm",
             "idempotency_key": f"ui:{identity['tool_call_id']}:confirm:create_work_order"}
    after = _run(server, thread_id, command={"resume": {waiting["id"]: press}})
    return after["values"]["ui_action_result"]


def test_replay_and_fork_through_a_confirmed_work_order_leave_exactly_one_row(app, workorders_db):
    inspection = f"inspection-81-{uuid.uuid4().hex[:8]}"
    app.open()
    app.seed_draft(inspection, {**DRAFT, "inspection_id": inspection})
    app.start(inspection, note="script: confirm")
    app.page.locator("#sw-screen [data-sw-id='confirm']").click()
    app.page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    rows = [r for r in WorkOrders(workorders_db).orders() if r["key"].startswith(f"work-order:{inspection}:")]
    assert len(rows) == 1 and rows[0]["status"] == "open"
    order = rows[0]
    app.page.locator(f"#sw-screen [data-sw-id='close-{order['id'].lower()}']").wait_for(timeout=10_000)

    server, thread_id = app.server_url, _thread_id(app.server_url, inspection)
    assert order["thread_id"] == thread_id
    history = httpx.post(f"{server}/threads/{thread_id}/history", json={"limit": 100}, timeout=30).json()
    before = next(s for s in history if s["interrupts"] and not s["values"].get("ui_actions"))
    assert before["checkpoint"]["checkpoint_id"] == order["checkpoint_id"]  # the row says where it was filed

    # replay from the checkpoint that waited for the press: asked again, answered with the original order
    replayed = _run(server, thread_id, input=None, checkpoint={"checkpoint_id": order["checkpoint_id"]})
    again = _press(server, thread_id, replayed)
    # fork: a new checkpoint from the same point (same substance), run, pressed again
    fork = httpx.post(f"{server}/threads/{thread_id}/state", timeout=30, json={
        "values": {"inspection_id": inspection}, "as_node": AS_NODE,
        "checkpoint": {"checkpoint_id": order["checkpoint_id"]}}).json()
    forked = _run(server, thread_id, input=None, checkpoint=fork["checkpoint"])
    on_fork = _press(server, thread_id, forked)

    for answer in (again, on_fork):
        assert answer["status"] == "done" and answer["result"]["created"] is False
        assert answer["result"]["work_order"] == order["id"] and answer["result"]["key"] == order["key"]
    assert [r for r in WorkOrders(workorders_db).orders() if r["key"].startswith(f"work-order:{inspection}:")] \
        == [order]  # exactly one row, unchanged


def _approve_bolt(server: str, thread_id: str, state: dict) -> dict:
    """Approve the pending bolt order (resume its interrupt by id); the order the tool answered."""
    [bolt] = [i for i in state["interrupts"] if (i.get("value") or {}).get("type") == "tool_approval"
              and i["value"]["args"].get("subject") == BOLT]
    decision = {"type": "approve", "args_revision": bolt["value"]["args_revision"],
                "args_hash": bolt["value"]["args_hash"]}
    after = _run(server, thread_id, command={"resume": {bolt["id"]: decision}})
    [answer] = [m for m in after["values"]["messages"]
                if m.get("type") == "tool" and m["tool_call_id"] == bolt["value"]["tool_call_id"]]
    return json.loads(answer["content"])["result"]


def test_replay_and_fork_through_an_approved_reviewed_order_leave_exactly_one_row(app, workorders_db):
    inspection = f"inspection-82-{uuid.uuid4().hex[:8]}"
    app.open()
    app.start(inspection, note="script: review")
    cards = app.page.locator("#sw-reviews article.sw-review")
    expect(cards).to_have_count(3, timeout=60_000)
    cards.filter(has_text=BOLT).get_by_role("button", name="Approve").click()
    app.page.locator("#sw-reviews [data-review-action='send']").click()
    expect(cards).to_have_count(2, timeout=60_000)
    [order] = [r for r in WorkOrders(workorders_db).orders() if r["key"].startswith(f"work-order:{inspection}:")]
    assert order["subject"] == BOLT and order["priority"] == "high"

    server, thread_id = app.server_url, _thread_id(app.server_url, inspection)
    assert order["thread_id"] == thread_id
    history = httpx.post(f"{server}/threads/{thread_id}/history", json={"limit": 100}, timeout=30).json()
    before = [s for s in history if any((i.get("value") or {}).get("type") == "tool_approval"
                                        for i in s["interrupts"])][-1]  # the first wait for the reviews
    checkpoint = {"checkpoint_id": before["checkpoint"]["checkpoint_id"]}
    replayed = _approve_bolt(server, thread_id, _run(server, thread_id, input=None, checkpoint=checkpoint))
    fork = httpx.post(f"{server}/threads/{thread_id}/state", timeout=30, json={
        "values": {"inspection_id": inspection}, "as_node": "model", "checkpoint": checkpoint}).json()
    forked = _approve_bolt(server, thread_id, _run(server, thread_id, input=None, checkpoint=fork["checkpoint"]))

    for answer in (replayed, forked):
        assert (answer["work_order"], answer["created"], answer["replayed"]) == (order["id"], False, True)
    assert [r for r in WorkOrders(workorders_db).orders() if r["key"].startswith(f"work-order:{inspection}:")] \
        == [order]  # exactly one row, unchanged
