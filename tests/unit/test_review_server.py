"""Per-call review on the inspection graph, in-process: distinct interrupts, edits, rejections, the
order rule, stale revisions and decided interrupts (sitewalk_agent.review, field_actions). Work orders
are filed in the real work-order database (a fresh SITEWALK_WORKORDERS_DB per test)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from graphs_for_tests import in_memory_graph
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command

from sitewalk_agent.demo.scripted_model import REVIEW_SUBJECTS
from sitewalk_agent.field_actions import NAMESPACE, work_order_key
from sitewalk_agent.review import STALE_REVISION
from sitewalk_agent.workorders import WorkOrder, WorkOrders
from sitewalk_shared.contracts.canonical import args_hash
from sitewalk_shared.contracts.workorders import work_orders_namespace


@pytest.fixture(autouse=True)
def workorders(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> WorkOrders:
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))
    return WorkOrders(tmp_path / "workorders.sqlite3")


async def _start(graph: Any, script: str, thread: str) -> tuple[dict[str, Any], list[Any]]:
    config = {"configurable": {"thread_id": thread}}
    await graph.ainvoke({"messages": [HumanMessage(f"Start inspection inspection-42 script: {script}")]}, config)
    return config, _pending(graph, config)


def _pending(graph: Any, config: dict[str, Any]) -> list[Any]:
    state = graph.get_state(config)
    return [i for i in state.interrupts if (i.value or {}).get("type") == "tool_approval"]


def _approve(i: Any) -> dict[str, Any]:
    return {"type": "approve", "args_revision": i.value["args_revision"], "args_hash": i.value["args_hash"]}


def _tool_messages(graph: Any, config: dict[str, Any]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in graph.get_state(config).values["messages"] if isinstance(m, ToolMessage)}


async def _orders(graph: Any) -> list[WorkOrder]:
    """The rows of the work-order database (the graph's store holds no work orders)."""
    assert not await graph.store.asearch((*NAMESPACE, "work_orders"))
    return WorkOrders().orders()


def test_two_calls_of_the_same_tool_are_distinct_interrupts() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-distinct")
        orders = [i for i in pending if i.value["name"] == "create_work_order"]
        assert len(pending) == 3 and len(orders) == 2
        assert len({i.id for i in orders}) == 2 and len({i.value["tool_call_id"] for i in orders}) == 2
        assert sorted(i.value["args"]["subject"] for i in orders) == sorted(REVIEW_SUBJECTS)
        assert all(i.value["args_hash"] == args_hash(i.value["args"]) and i.value["args_revision"] == 1
                   for i in pending)
        # Approving one order by its id runs only that one; the other and the notice stay pending.
        first = next(i for i in orders if i.value["args"]["subject"] == REVIEW_SUBJECTS[0])
        await graph.ainvoke(Command(resume={first.id: _approve(first)}), config)
        assert [o["subject"] for o in await _orders(graph)] == [REVIEW_SUBJECTS[0]]
        still = _pending(graph, config)
        assert {i.id for i in still} == {i.id for i in pending} - {first.id}
        assert first.value["tool_call_id"] in _tool_messages(graph, config)

    asyncio.run(scenario())


def test_an_unanswered_call_stays_pending_never_a_default_yes() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-unanswered")
        notice = next(i for i in pending if i.value["name"] == "notify_site_manager")
        others = {i.id: _approve(i) for i in pending if i is not notice}
        await graph.ainvoke(Command(resume=others), config)
        assert [i.id for i in _pending(graph, config)] == [notice.id]
        assert not await graph.store.asearch((*NAMESPACE, "notifications"))
        assert notice.value["tool_call_id"] not in _tool_messages(graph, config)

    asyncio.run(scenario())


def test_an_edited_call_runs_with_the_edited_args() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-edit")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        edited = {**order.value["args"], "subject": "Replace the east rail bolt", "priority": "urgent"}
        decision = {"type": "edit", "args_revision": 1, "args_hash": order.value["args_hash"],
                    "edited_action": {"name": "create_work_order", "args": edited}}
        await graph.ainvoke(Command(resume={order.id: decision}), config)
        [made] = await _orders(graph)
        assert made["subject"] == "Replace the east rail bolt" and made["priority"] == "urgent"
        assert made["key"] == work_order_key("inspection-42", "Replace the east rail bolt")
        assert made["thread_id"] == "t-edit" and made["checkpoint_id"]
        mirrored = await graph.store.aget(work_orders_namespace(), made["key"])  # for the restore preview
        assert mirrored is not None and (mirrored.value["id"], mirrored.value["inspection_id"]) == (
            made["id"], "inspection-42")

    asyncio.run(scenario())


def test_a_rejection_reaches_the_model_and_nothing_runs() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-reject")
        decisions = {i.id: ({"type": "reject", "args_revision": 1, "args_hash": i.value["args_hash"],
                             "message": "not needed today"} if i.value["name"] == "notify_site_manager"
                            else _approve(i)) for i in pending}
        await graph.ainvoke(Command(resume=decisions), config)
        notice = next(i for i in pending if i.value["name"] == "notify_site_manager")
        answer = _tool_messages(graph, config)[notice.value["tool_call_id"]]
        assert answer.status == "error" and "not needed today" in str(answer.content)
        assert not await graph.store.asearch((*NAMESPACE, "notifications"))
        assert not _pending(graph, config)
        last = graph.get_state(config).values["messages"][-1]
        assert "notify_site_manager not run" in str(last.content) and "create_work_order done" in str(last.content)

    asyncio.run(scenario())


def test_delete_before_archive_is_refused_by_the_tool_whatever_the_order_of_answers() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "photos", "t-order")
        by_name = {i.value["name"]: i for i in pending}
        assert set(by_name) == {"archive_photos", "delete_photos"}
        delete, archive = by_name["delete_photos"], by_name["archive_photos"]
        await graph.ainvoke(Command(resume={delete.id: _approve(delete)}), config)  # the wrong order
        refused = json.loads(str(_tool_messages(graph, config)[delete.value["tool_call_id"]].content))
        assert refused["ok"] is False and refused["error"]["detail"]["rule"] == "archive_before_delete"
        assert not await graph.store.asearch((*NAMESPACE, "photo_deletions"))
        await graph.ainvoke(Command(resume={archive.id: _approve(archive)}), config)
        assert len(await graph.store.asearch((*NAMESPACE, "photo_archive"))) == 2
        assert not await graph.store.asearch((*NAMESPACE, "photo_deletions"))

    asyncio.run(scenario())


def test_delete_after_archive_runs() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "photos", "t-order-ok")
        archive = next(i for i in pending if i.value["name"] == "archive_photos")
        await graph.ainvoke(Command(resume={archive.id: _approve(archive)}), config)
        [delete] = _pending(graph, config)
        await graph.ainvoke(Command(resume={delete.id: _approve(delete)}), config)
        assert len(await graph.store.asearch((*NAMESPACE, "photo_deletions"))) == 2

    asyncio.run(scenario())


@pytest.mark.parametrize("stale", [
    {"args_revision": 1, "args_hash": "0" * 64},   # approved other args than are pending
    {"args_revision": 2},                          # a revision the server does not have
    {},                                            # a decision that names no revision
])
def test_a_stale_decision_is_refused_and_nothing_runs(stale: dict[str, Any]) -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-stale")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        await graph.ainvoke(Command(resume={order.id: {"type": "approve", **stale}}), config)  # no exception
        assert not await _orders(graph)
        again = _asked_again(graph, config, order)
        assert again.value["refusal"]["code"] == STALE_REVISION and again.id != order.id
        await graph.ainvoke(Command(resume={again.id: _approve(again)}), config)
        assert len(await _orders(graph)) == 1

    asyncio.run(scenario())


def _asked_again(graph: Any, config: dict[str, Any], asked: Any) -> Any:
    """The review of the same call, pending again (a refused answer asks again, under a new interrupt id)."""
    assert graph.get_state(config).next  # the thread still waits: the run did not fail
    [again] = [i for i in _pending(graph, config) if i.value["tool_call_id"] == asked.value["tool_call_id"]]
    assert (again.value["args"], again.value["args_hash"]) == (asked.value["args"], asked.value["args_hash"])
    return again


def _edit(i: Any, **changes: Any) -> dict[str, Any]:
    return {"type": "edit", "args_revision": 1, "args_hash": i.value["args_hash"],
            "edited_action": {"name": i.value["name"], "args": {**i.value["args"], **changes}}}


@pytest.mark.parametrize(("changes", "field"), [
    ({"priority": "medium"}, "priority"),   # the contract allows low, normal, high, urgent
    ({"subject": ""}, "subject"),           # too short
    ({"subject": 7}, "subject"),            # not a string
])
def test_an_edit_that_breaks_the_contract_is_refused_the_others_apply(changes: dict[str, Any], field: str) -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-bad-edit")
        first, second = (i for i in pending if i.value["name"] == "create_work_order")
        notice = next(i for i in pending if i.value["name"] == "notify_site_manager")
        rejected = {"type": "reject", "args_revision": 1, "args_hash": notice.value["args_hash"], "message": "no"}
        await graph.ainvoke(Command(resume={first.id: _approve(first), second.id: _edit(second, **changes),
                                            notice.id: rejected}), config)
        assert [o["subject"] for o in await _orders(graph)] == [first.value["args"]["subject"]]  # the others applied
        assert notice.value["tool_call_id"] in _tool_messages(graph, config)
        again = _asked_again(graph, config, second)
        refusal = again.value["refusal"]
        assert (refusal["code"], refusal["field"], refusal["decision"]) == ("invalid_edit", field, "edit")
        assert refusal["message"] and second.value["tool_call_id"] not in _tool_messages(graph, config)
        await graph.ainvoke(Command(resume={again.id: _edit(again, priority="urgent")}), config)
        made = {o["subject"]: o["priority"] for o in await _orders(graph)}
        assert made[second.value["args"]["subject"]] == "urgent" and not _pending(graph, config)

    asyncio.run(scenario())


def test_an_edit_naming_another_tool_or_an_unknown_decision_is_refused() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-bad-kind")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        other = {**_edit(order), "edited_action": {"name": "delete_photos", "args": order.value["args"]}}
        await graph.ainvoke(Command(resume={order.id: other}), config)
        again = _asked_again(graph, config, order)
        refusal = again.value["refusal"]
        assert (refusal["code"], refusal["field"]) == ("invalid_edit", "edited_action.name")
        await graph.ainvoke(Command(resume={again.id: {**_approve(again), "type": "maybe"}}), config)
        third = _asked_again(graph, config, again)
        assert third.value["refusal"]["code"] == "invalid_decision" and not await _orders(graph)

    asyncio.run(scenario())


def test_a_decided_interrupt_runs_nothing_again() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-decided")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        await graph.ainvoke(Command(resume={order.id: _approve(order)}), config)
        before = len(graph.get_state(config).values["messages"])
        await graph.ainvoke(Command(resume={order.id: _approve(order)}), config)  # answered twice
        assert len(await _orders(graph)) == 1
        assert order.id not in {i.id for i in _pending(graph, config)}
        assert len(graph.get_state(config).values["messages"]) == before

    asyncio.run(scenario())


def test_a_replayed_work_order_is_not_created_twice() -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-replay")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        await graph.ainvoke(Command(resume={order.id: _approve(order)}), config)
        other_config, again = await _start(graph, "review", "t-replay-2")  # same inspection, same subjects
        same = next(i for i in again if i.value["args"] == order.value["args"])
        await graph.ainvoke(Command(resume={same.id: _approve(same)}), other_config)
        [row] = await _orders(graph)
        answer = json.loads(str(_tool_messages(graph, other_config)[same.value["tool_call_id"]].content))
        assert answer["result"]["replayed"] is True and answer["result"]["created"] is False
        assert answer["result"]["work_order"] == row["id"] and row["thread_id"] == "t-replay"  # the original

    asyncio.run(scenario())


def test_a_replay_and_a_fork_that_reach_the_same_reviewed_call_return_the_original_order(
        workorders: WorkOrders) -> None:
    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-travel")
        order = next(i for i in pending if i.value["args"].get("subject") == REVIEW_SUBJECTS[0])
        await graph.ainvoke(Command(resume={order.id: _approve(order)}), config)
        [row] = workorders.orders()
        before = [s async for s in graph.aget_state_history(config)
                  if any(i.id == order.id for i in s.interrupts)][-1]  # the checkpoint that waited for the review

        async def answer_again(run_config: dict[str, Any]) -> dict[str, Any]:
            await graph.ainvoke(None, run_config)
            again = next(i for i in _pending(graph, config) if i.value["tool_call_id"] == order.value["tool_call_id"])
            await graph.ainvoke(Command(resume={again.id: _approve(again)}), config)
            return json.loads(str(_tool_messages(graph, config)[order.value["tool_call_id"]].content))["result"]

        replayed = await answer_again(before.config)
        fork = await graph.aupdate_state(before.config, {"inspection_id": "inspection-42"}, as_node="model")
        forked = await answer_again(fork)
        for result in (replayed, forked):
            assert (result["work_order"], result["created"], result["replayed"]) == (row["id"], False, True)
        assert workorders.orders() == [row]  # one row, unchanged: its thread and checkpoint are the first call's

    asyncio.run(scenario())


def test_the_key_follows_the_subjects_words_not_its_spelling() -> None:
    assert work_order_key("inspection-42", "Loose bolt, east rail") == work_order_key("inspection-42",
                                                                                    "loose  BOLT east-rail")
    assert work_order_key("inspection-42", "Loose bolt") != work_order_key("inspection-43", "Loose bolt")
    assert work_order_key("i-1", "东侧栏杆螺栓松动") != work_order_key("i-1", "排水盖腐蚀")  # any script counts
    assert len(work_order_key("i" * 64, "word " * 40)) <= 300


def test_a_broken_work_order_system_is_a_typed_failure_and_nothing_is_filed(
        workorders: WorkOrders, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    (tmp_path / "not-a-db").write_text("this is not SQLite")
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "not-a-db"))

    async def scenario() -> None:
        graph = in_memory_graph()
        config, pending = await _start(graph, "review", "t-broken")
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        await graph.ainvoke(Command(resume={order.id: _approve(order)}), config)
        answer = _tool_messages(graph, config)[order.value["tool_call_id"]]
        body = json.loads(str(answer.content))
        assert answer.status == "error" and body["error"]["code"] == "unavailable"
        assert "outcome" not in body["error"]["detail"]  # a refusal is a failure, not an unknown outcome

    asyncio.run(scenario())
    assert workorders.orders() == []
