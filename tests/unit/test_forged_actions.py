"""Hostile UI actions (issue 12, item 6): a press with another thread's screen identity, on an element
that is not a ConfirmButton, or with a key already used, is refused (or answered as a replay) by the
server, changes nothing, and is an audit record on the thread's chain; oversize fields are clipped."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.types import Command
from test_agent_actions import GOOD, confirmed_thread, press

from sitewalk_agent.audit import HEAD_KEY, args_hash, audit_namespace, verify_chain
from sitewalk_agent.audit.record import MAX_FIELD
from sitewalk_agent.workorders import WorkOrders


@pytest.fixture
def orders(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))
    return WorkOrders(tmp_path / "workorders.sqlite3")


def _ui_records(graph: Any, thread_id: str) -> list[dict[str, Any]]:
    items = [(i.key, i.value) for i in graph.store.search(audit_namespace(thread_id), limit=1000)]
    assert verify_chain(items) is None
    return [v for k, v in sorted(items) if k != HEAD_KEY and v["kind"] == "ui_action"]


async def _forge(graph: Any, config: dict[str, Any], **change: Any) -> dict[str, Any]:
    """Resume the waiting ui_action_request with a press built by hand (not by the app)."""
    state = await graph.aget_state(config)
    [ask] = state.interrupts
    request = {**GOOD, "identity": state.values["ui_spec"]["identity"], **change}
    await graph.ainvoke(Command(resume={ask.id: request}), config)
    return (await graph.aget_state(config)).values["ui_action_result"]


OTHER_THREADS_SCREEN = {"message_id": "msg_other", "tool_call_id": "call_of_another_thread", "revision": 1}


@pytest.mark.parametrize("forged, reason", [
    ({"identity": OTHER_THREADS_SCREEN}, "not the current one"),
    ({"element_id": "risk"}, "the screen has no button 'risk'"),  # the RiskBadge: not a ConfirmButton
    ({"element_id": "no-such-element"}, "no button 'no-such-element'"),
    ({"action": "close_work_order"}, "asks for 'create_work_order'"),
])
def test_a_forged_press_is_refused_and_recorded(orders, forged, reason):
    async def go():
        graph, config = await confirmed_thread("t-forged")
        answer = await _forge(graph, config, **forged)
        assert answer["status"] == "refused" and reason in answer["reason"]
        assert orders.orders() == [] and not (await graph.aget_state(config)).values.get("ui_actions")
        [record] = _ui_records(graph, "t-forged")
        assert record["outcome"] == "refused" and reason in record["detail"]
        assert record["review_status"] == "refused"
        assert record["idempotency_key"] == GOOD["idempotency_key"] and record["thread_id"] == "t-forged"
        asked = {"action": forged.get("action", GOOD["action"]), "element_id": forged.get("element_id", "confirm")}
        assert record["tool_name"] == asked["action"]
        assert record["ui_spec_identity"] == forged.get("identity", record["ui_spec_identity"])
        assert record["args_hash"] == args_hash({**asked, "identity": record["ui_spec_identity"]})
        assert record["interrupt_id"]  # the interrupt the forged resume answered

    asyncio.run(go())


def test_a_replayed_key_changes_nothing_and_is_recorded_as_a_replay(orders):
    async def go():
        graph, config = await confirmed_thread("t-replayed")
        first = await press(graph, config)
        again = await press(graph, config)  # the same press, key and all, sent again
        assert (first["status"], again["status"]) == ("done", "replayed")
        assert len(orders.orders()) == 1
        records = _ui_records(graph, "t-replayed")
        assert [r["outcome"] for r in records] == ["done", "replayed"]
        assert records[0]["idempotency_key"] == records[1]["idempotency_key"]
        assert records[1]["detail"] == first["result"]["work_order"]

    asyncio.run(go())


def test_a_press_that_is_not_a_ui_action_at_all_is_refused_and_recorded(orders):
    async def go():
        graph, config = await confirmed_thread("t-garbage")
        [ask] = (await graph.aget_state(config)).interrupts
        await graph.ainvoke(Command(resume={ask.id: ["not", "a", "press"]}), config)
        answer = (await graph.aget_state(config)).values["ui_action_result"]
        assert answer["status"] == "refused" and "not a ui_action" in answer["reason"]
        [record] = _ui_records(graph, "t-garbage")
        assert record["outcome"] == "refused" and record["idempotency_key"] is None

    asyncio.run(go())


def test_oversize_and_odd_typed_fields_of_a_forged_press_are_clipped_not_stored(orders):
    huge = "k" * 100_000
    async def go():
        graph, config = await confirmed_thread("t-huge")
        answer = await _forge(graph, config, idempotency_key=huge, element_id={"nested": ["x"] * 1000},
                              identity={"tool_call_id": "t" * 5000, "extra": "x" * 50_000})
        assert answer["status"] == "refused"
        assert all(len(str(v)) <= MAX_FIELD for k, v in answer.items() if k != "reason")
        [record] = _ui_records(graph, "t-huge")
        assert len(record["idempotency_key"]) <= MAX_FIELD and isinstance(record["ui_spec_identity"], dict)
        assert set(record["ui_spec_identity"]) <= {"message_id", "tool_call_id", "revision"}
        assert len(str(record)) < 5_000

    asyncio.run(go())
