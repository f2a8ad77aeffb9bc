"""Records written by the real graph (create_agent with Sitewalk's kit) into an InMemoryStore."""

from __future__ import annotations

import asyncio
from typing import Any

from graphs_for_tests import confirm_screen, in_memory_graph
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from sitewalk.audit_trail import AuditTrail as ShownTrail
from sitewalk_agent.audit import FIELDS, HEAD_KEY, args_hash, audit_namespace, record_review_decision, verify_chain

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}


def _trail(store: InMemoryStore, thread_id: str, owner: str | None = None) -> list[tuple[str, dict]]:
    return [(i.key, i.value) for i in store.search(audit_namespace(thread_id, owner), limit=1000)]


def _records(items: list[tuple[str, dict]]) -> list[dict]:
    return [value for key, value in sorted(items) if key != HEAD_KEY]


async def _confirmed_inspection(config: dict) -> tuple[Any, dict[str, Any], str]:
    graph, pending = await confirm_screen(config, DRAFT)
    cid = pending.value["tool_call"]["id"]
    state = await graph.aget_state(config)
    [ask] = state.interrupts
    identity = state.values["ui_spec"]["identity"]
    press = {"type": "ui_action", "action": "create_work_order", "identity": identity, "element_id": "confirm",
             "idempotency_key": f"ui:{identity['tool_call_id']}:confirm"}
    await graph.ainvoke(Command(resume={ask.id: press}), config)
    answered = (await graph.aget_state(config)).values["ui_action_result"]
    return graph, {"headless": pending.id, "action": ask.id, "call": cid, "answer": answered}, press["idempotency_key"]


def test_a_headless_call_and_a_confirm_press_are_recorded_in_one_whole_chain():
    config = {"configurable": {"thread_id": "t-audit"}}
    graph, ids, key = asyncio.run(_confirmed_inspection(config))
    items = _trail(graph.store, "t-audit")
    assert verify_chain(items) is None
    records = _records(items)
    assert all(set(FIELDS) <= set(r) for r in records)
    [headless] = [r for r in records if r["tool_name"] == "read_local_draft"]
    assert headless["kind"] == "tool_call" and headless["tool_call_id"] == ids["call"]
    assert headless["interrupt_id"] == ids["headless"]  # the id the client answered
    assert headless["args_hash"] == args_hash({"inspection_id": "inspection-42"})
    assert headless["outcome"] == "succeeded" and headless["detail"] == "browser"
    assert headless["thread_id"] == "t-audit" and headless["checkpoint_id"]
    # nobody named yet: the draft that names the inspector is this call's answer
    assert headless["reviewer"] == {"identity": "", "display_name": "", "authenticated": False}
    [action] = [r for r in records if r["kind"] == "ui_action"]
    assert action["outcome"] == ids["answer"]["status"] and action["idempotency_key"] == key
    assert action["interrupt_id"] == ids["action"] and action["task_id"] == "inspection-42"
    assert action["reviewer"] == {"identity": "Ana", "display_name": "Ana", "authenticated": False}
    assert action["ui_spec_identity"]["tool_call_id"]
    assert action["detail"] == ids["answer"]["result"]["work_order"]  # what the server answered the press
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))


def test_the_authenticated_user_is_the_reviewer_and_owns_the_namespace():
    user = {"identity": "ana", "display_name": "Ana Ortiz"}
    config = {"configurable": {"thread_id": "t-auth", "langgraph_auth_user": user, "langgraph_auth_user_id": "ana"}}
    graph, _, _ = asyncio.run(_confirmed_inspection(config))
    assert _trail(graph.store, "t-auth") == []
    records = _records(_trail(graph.store, "t-auth", owner="ana"))
    assert records and all(r["reviewer"] == {**user, "authenticated": True} for r in records)


def test_a_review_decision_names_the_revision_and_the_args_it_approves():
    store = InMemoryStore()
    config = {"configurable": {"thread_id": "t-review", "inspector": "Bo"}}
    args = {"subject": "risk-1", "priority": "high"}

    async def go():
        return await record_review_decision(store, config, {"inspection_id": "inspection-7"}, interrupt_id="i1",
                                            tool_call_id="call_9", tool_name="create_work_order", args=args,
                                            args_revision=2, decision="edited")

    record = asyncio.run(go())
    assert record is not None
    assert (record["kind"], record["review_status"], record["args_revision"]) == ("review_decision", "edited", 2)
    assert record["args_hash"] == args_hash(args) and record["task_id"] == "inspection-7"
    assert record["reviewer"] == {"identity": "Bo", "display_name": "Bo", "authenticated": False}
    assert verify_chain(_trail(store, "t-review")) is None


def test_review_decisions_on_the_real_graph_are_recorded_with_their_revision_and_interrupt():
    async def go() -> tuple[Any, list[Any]]:
        graph = in_memory_graph()
        config = {"configurable": {"thread_id": "t-decide", "inspector": "Bo"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: review")]}, config)
        pending = [i for i in (await graph.aget_state(config)).interrupts if i.value.get("type") == "tool_approval"]
        approve, edit = [i for i in pending if i.value["name"] == "create_work_order"]
        [reject] = [i for i in pending if i.value["name"] == "notify_site_manager"]
        named = {"args_revision": 1}
        edited = {**edit.value["args"], "priority": "low"}
        await graph.ainvoke(Command(resume={
            approve.id: {"type": "approve", **named, "args_hash": approve.value["args_hash"]},
            edit.id: {"type": "edit", **named, "args_hash": edit.value["args_hash"],
                      "edited_action": {"name": edit.value["name"], "args": edited}},
            reject.id: {"type": "reject", **named, "args_hash": reject.value["args_hash"], "message": "not now"},
        }), config)
        return graph, [approve, edit, reject, edited]

    graph, (approve, edit, reject, edited) = asyncio.run(go())
    items = _trail(graph.store, "t-decide")
    assert verify_chain(items) is None
    decisions = {r["interrupt_id"]: r for r in _records(items) if r["kind"] == "review_decision"}
    assert set(decisions) == {approve.id, edit.id, reject.id}
    assert decisions[approve.id]["review_status"] == "approved"
    assert decisions[approve.id]["args_hash"] == approve.value["args_hash"] == args_hash(approve.value["args"])
    assert (decisions[edit.id]["review_status"], decisions[edit.id]["args_revision"]) == ("edited", 2)
    assert decisions[edit.id]["args_hash"] == args_hash(edited) != edit.value["args_hash"]
    assert (decisions[reject.id]["review_status"], decisions[reject.id]["detail"]) == ("rejected", "not now")
    assert all(r["reviewer"] == {"identity": "Bo", "display_name": "Bo", "authenticated": False}
               for r in decisions.values())
    assert all(r["tool_call_id"] == i.value["tool_call_id"] for r, i in
               ((decisions[x.id], x) for x in (approve, edit, reject)))
    calls = {r["tool_call_id"]: r for r in _records(items) if r["kind"] == "tool_call"}
    ran = calls[edit.value["tool_call_id"]]  # the edited call ran with the edited args, after its decision
    assert (ran["review_status"], ran["args_revision"], ran["args_hash"]) == ("edited", 2, args_hash(edited))
    assert ran["seq"] > decisions[edit.id]["seq"]
    said_no = calls[reject.value["tool_call_id"]]  # it did not run, and did not fail: the reviewer said no
    assert (said_no["review_status"], said_no["outcome"], said_no["detail"]) == ("rejected", "rejected", "not now")


def test_a_typed_position_is_recorded_as_typed_on_the_server_and_on_the_device():
    import json

    from langchain_core.messages import ToolMessage

    from sitewalk.headless.delivery import AuditLog
    from sitewalk_agent.audit.record import tool_outcome
    from sitewalk_shared.contracts.envelope import ok_result

    typed = ok_result("get_current_location", "c1", {"latitude": 1.5, "longitude": 2.5, "accuracy_m": None,
                                                     "timestamp": "2026-12-02T10:00:00.000Z", "source": "manual"})
    message = ToolMessage(json.dumps(typed), tool_call_id="c1", name="get_current_location",
                          artifact={"answered_by": "browser"})
    assert tool_outcome(message) == ("succeeded", "browser; source: manual")
    draft = ToolMessage(json.dumps(ok_result("read_local_draft", "c2", {"site": "x"})), tool_call_id="c2",
                        name="read_local_draft", artifact={"answered_by": "browser"})
    assert tool_outcome(draft) == ("succeeded", "browser")  # a result without a source is as before
    entry = AuditLog.entry("t1", typed, "2026-12-02T10:00:01Z")
    assert entry["source"] == "manual" and "source" in entry["fields"]
    assert "source" not in AuditLog.entry("t1", ok_result("read_local_draft", "c2", {}), "x")


def test_each_refused_review_answer_is_recorded_once_with_its_code_and_field():
    """A refused answer is a permission conclusion: it is on the chain, keyed by the interrupt it answered.
    The task re-runs from its start on every later resume and meets the same refused answer again (LangGraph
    replays a task's answers): still one record for it. A second refused answer (to the re-asked interrupt,
    a new id) is a second refusal, a record of its own."""
    async def go() -> tuple[Any, list[Any]]:
        graph = in_memory_graph()
        config = {"configurable": {"thread_id": "t-refuse", "inspector": "Bo"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: review")]}, config)
        pending = [i for i in (await graph.aget_state(config)).interrupts if i.value.get("type") == "tool_approval"]
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        named = {"args_revision": 1, "args_hash": order.value["args_hash"]}
        medium = {**order.value["args"], "priority": "medium"}
        bad_edit = {"type": "edit", **named, "edited_action": {"name": order.value["name"], "args": medium}}
        await graph.ainvoke(Command(resume={order.id: bad_edit}), config)
        again = _pending_for(await graph.aget_state(config), order)
        await graph.ainvoke(Command(resume={again.id: {"type": "approve", "args_revision": 1, "args_hash": "0" * 64}}),
                            config)
        third = _pending_for(await graph.aget_state(config), order)
        await graph.ainvoke(Command(resume={third.id: {"type": "approve", **named}}), config)  # re-runs the task
        return graph, [order, again, third]

    graph, (order, again, third) = asyncio.run(go())
    items = _trail(graph.store, "t-refuse")
    assert verify_chain(items) is None
    mine = [r for r in _records(items) if r["tool_call_id"] == order.value["tool_call_id"]]
    refusals = [r for r in mine if r["review_status"] == "refused"]
    assert [(r["interrupt_id"], r["outcome"], r["field"]) for r in refusals] == [
        (order.id, "invalid_edit", "priority"), (again.id, "stale_revision", None)]
    assert "urgent" in refusals[0]["detail"] and refusals[1]["detail"]
    assert all(r["kind"] == "review_decision" and r["args_hash"] == order.value["args_hash"]
               and r["reviewer"]["display_name"] == "Bo" for r in refusals)
    [decided] = [r for r in mine if r["kind"] == "review_decision" and r["outcome"] == "decided"]
    assert (decided["interrupt_id"], decided["review_status"]) == (third.id, "approved")
    [ran] = [r for r in mine if r["kind"] == "tool_call"]  # it ran with its decision, not a refusal's status
    assert ran["review_status"] == "approved" and refusals[-1]["seq"] < decided["seq"] < ran["seq"]
    row = next(r for r in ShownTrail("t-refuse", (), _records(items)).rows() if r["outcome"].startswith("refused"))
    assert row["outcome"].startswith("refused · invalid_edit · field priority · ")  # the app's audit panel


def _pending_for(state: Any, review: Any) -> Any:
    [again] = [i for i in state.interrupts if i.value.get("tool_call_id") == review.value["tool_call_id"]]
    assert again.id != review.id and again.value.get("refusal")
    return again
