"""A reviewed work order whose request goes out and whose answer never comes (the work-order system is
slower than SITEWALK_WORKORDERS_TIMEOUT_MS): recorded and shown as outcome_unknown, never failed or
succeeded, then reconciled from the work-order database by its idempotency key before any retry."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from graphs_for_tests import in_memory_graph
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command

from sitewalk_agent.audit import HEAD_KEY, audit_namespace, verify_chain
from sitewalk_agent.demo.scripted_model import REVIEW_SUBJECTS
from sitewalk_agent.field_actions import work_order_key
from sitewalk_agent.outcomes import UNKNOWN, order_timeout_s
from sitewalk_agent.workorders import WorkOrder, WorkOrders
from sitewalk_shared.contracts.envelope import is_outcome_unknown
from sitewalk_shared.contracts.workorders import work_orders_namespace

BOLT = REVIEW_SUBJECTS[0]
LATENCY_MS = 600


@pytest.fixture(autouse=True)
def workorders(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> WorkOrders:
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))
    monkeypatch.setenv("SITEWALK_WORKORDERS_TIMEOUT_MS", "150")
    return WorkOrders(tmp_path / "workorders.sqlite3")


def _decide(pending: list[Any]) -> dict[str, Any]:
    """Approve the bolt's order and the notice, reject the drain's order."""
    out = {}
    for i in pending:
        named = {"args_revision": 1, "args_hash": i.value["args_hash"]}
        drain = i.value["args"].get("subject") == REVIEW_SUBJECTS[1]
        out[i.id] = {"type": "reject", **named, "message": "later"} if drain else {"type": "approve", **named}
    return out


async def _timed_out(graph: Any, thread: str, note: str = "") -> tuple[dict[str, Any], str]:
    """An inspection whose approved bolt order times out; (config, its tool call id)."""
    config = {"configurable": {"thread_id": thread}}
    opening = f"Start inspection inspection-42 script: review {note}".strip()
    await graph.ainvoke({"messages": [HumanMessage(opening)]}, config)
    pending = (await graph.aget_state(config)).interrupts
    await graph.ainvoke(Command(resume=_decide(pending)), config)
    bolt = next(i for i in pending if i.value["args"].get("subject") == BOLT)
    return config, bolt.value["tool_call_id"]


def _tool_message(graph: Any, config: dict[str, Any], call_id: str) -> ToolMessage:
    return next(m for m in graph.get_state(config).values["messages"]
                if isinstance(m, ToolMessage) and m.tool_call_id == call_id)


def _audit(graph: Any, thread: str) -> list[dict[str, Any]]:
    items = [(i.key, i.value) for i in graph.store.search(audit_namespace(thread), limit=1000)]
    assert verify_chain(items) is None
    return [v for k, v in sorted(items) if k != HEAD_KEY]


def _wait_for_row(orders: WorkOrders, count: int = 1) -> list[WorkOrder]:
    deadline = time.monotonic() + 10
    while len(orders.orders()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return orders.orders()


def test_the_timeout_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert order_timeout_s() == 0.15
    monkeypatch.setenv("SITEWALK_WORKORDERS_TIMEOUT_MS", "not a number")
    assert order_timeout_s() == 5.0
    monkeypatch.delenv("SITEWALK_WORKORDERS_TIMEOUT_MS")
    assert order_timeout_s() == 5.0


def test_a_timed_out_order_is_outcome_unknown_then_reconciled_by_key(workorders: WorkOrders) -> None:
    graph = in_memory_graph()

    async def scenario() -> None:
        config, call_id = await _timed_out(graph, "t-unknown", f"orders_latency_ms={LATENCY_MS}")
        state = graph.get_state(config).values
        answer = _tool_message(graph, config, call_id)
        assert is_outcome_unknown(str(answer.content))  # neither failed nor succeeded
        assert json.loads(str(answer.content))["error"]["detail"]["idempotency_key"] == work_order_key(
            "inspection-42", BOLT)
        assert state["call_outcomes"][call_id]["status"] == UNKNOWN
        assert "outcome unknown" in str(state["messages"][-1].content)
        assert graph.store.search(work_orders_namespace()) == []  # nothing known, nothing mirrored
        [record] = [r for r in _audit(graph, "t-unknown") if r["tool_call_id"] == call_id and r["kind"] == "tool_call"]
        assert record["outcome"] == UNKNOWN

        [row] = _wait_for_row(workorders)  # the request that went out lands, late
        assert row["key"] == work_order_key("inspection-42", BOLT)
        await graph.ainvoke({"messages": [HumanMessage("check the work orders")]}, config)
        settled = graph.get_state(config).values
        entry = settled["call_outcomes"][call_id]
        assert (entry["status"], entry["work_order"]) == ("succeeded", row["id"])
        assert row["id"] in str(settled["messages"][-1].content)  # the agent says what was found
        [rec] = [r for r in _audit(graph, "t-unknown") if r["kind"] == "reconciliation"]
        assert (rec["tool_call_id"], rec["outcome"], rec["detail"]) == (call_id, "succeeded", row["id"])
        assert rec["idempotency_key"] == row["key"]
        assert len(workorders.orders()) == 1
        mirrored = graph.store.get(work_orders_namespace(), row["key"])  # the browser's copy, once it is known
        assert mirrored is not None and mirrored.value["id"] == row["id"]
        assert mirrored.value["inspection_id"] == "inspection-42"

    asyncio.run(scenario())


def test_an_order_not_landed_yet_stays_unknown_and_is_not_retried(workorders: WorkOrders,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    graph = in_memory_graph()
    monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "1500")

    async def scenario() -> None:
        config, call_id = await _timed_out(graph, "t-in-flight")
        monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "0")  # the check itself is fast
        await graph.ainvoke({"messages": [HumanMessage("check the work orders")]}, config)
        state = graph.get_state(config).values
        assert state["call_outcomes"][call_id]["status"] == UNKNOWN
        assert "still unknown" in str(state["messages"][-1].content)
        assert workorders.orders() == []  # nothing was filed by checking
        assert not [r for r in _audit(graph, "t-in-flight") if r["kind"] == "reconciliation"]

    asyncio.run(scenario())
    assert len(_wait_for_row(workorders)) == 1  # the request in flight lands once


async def _retry(graph: Any, config: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The same order asked again (a new call with the same arguments), approved; its answer."""
    args = {"inspection_id": "inspection-42", "subject": BOLT, "priority": "high"}
    retry = AIMessage("Trying the work order again.", tool_calls=[
        {"id": "call_retry", "name": "create_work_order", "args": args}])
    await graph.aupdate_state(config, {"messages": [retry]}, as_node="model")
    await graph.ainvoke(None, config)
    [review] = (await graph.aget_state(config)).interrupts
    await graph.ainvoke(Command(resume={review.id: {"type": "approve", "args_revision": 1,
                                                    "args_hash": review.value["args_hash"]}}), config)
    return json.loads(str(_tool_message(graph, config, "call_retry").content))


def test_a_retry_after_the_order_landed_reconciles_first_and_files_nothing(workorders: WorkOrders,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    graph = in_memory_graph()
    monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", str(LATENCY_MS))

    async def scenario() -> None:
        config, call_id = await _timed_out(graph, "t-retry")
        monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "0")
        [row] = _wait_for_row(workorders)
        answer = await _retry(graph, config, call_id)
        assert answer["ok"] and answer["result"]["work_order"] == row["id"] and answer["result"]["created"] is False
        entry = graph.get_state(config).values["call_outcomes"][call_id]
        assert entry["status"] == "succeeded" and entry["work_order"] == row["id"]
        assert workorders.orders() == [row]

    asyncio.run(scenario())


def test_a_retry_before_the_late_request_lands_files_one_order(workorders: WorkOrders,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    graph = in_memory_graph()
    monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "1200")

    async def scenario() -> None:
        config, call_id = await _timed_out(graph, "t-race")
        monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "0")
        answer = await _retry(graph, config, call_id)  # nothing there yet: the retry files it
        assert answer["ok"] and answer["result"]["created"] is True
        entry = graph.get_state(config).values["call_outcomes"][call_id]
        assert entry["status"] == "succeeded" and entry["work_order"] == answer["result"]["work_order"]
        return answer["result"]["work_order"]

    filed = asyncio.run(scenario())  # returns once the late request has landed too (the executor is drained)
    [row] = workorders.orders()  # the late request met the UNIQUE key: still one row, the retry's
    assert row["id"] == filed
