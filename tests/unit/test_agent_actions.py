"""ConfirmButton actions: authorized by the agent against its state, performed once, replays change nothing."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage

from sitewalk.contracts.envelope import ok_result
from sitewalk_agent import graph as G
from sitewalk_agent.actions import authorize, expected_actions
from sitewalk_agent.scripted_model import inspection_screen

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
UI = {**inspection_screen(DRAFT), "identity": {"message_id": "msg_1", "tool_call_id": "call_1", "revision": 1}}
GOOD = {"type": "ui_action", "action": "create_work_order", "identity": UI["identity"], "element_id": "confirm",
        "idempotency_key": "ui:call_1:confirm:create_work_order"}


def test_expected_actions_are_the_screens_confirm_buttons():
    assert expected_actions(UI) == {"confirm": {"action": "create_work_order", "subject": "risk-1",
                                                "label": "Create work order"}}
    assert expected_actions(None) == {}


@pytest.mark.parametrize("change, reason", [
    ({}, None),
    ({"type": "click"}, "not a ui_action"),
    ({"identity": {"tool_call_id": "call_old"}}, "not the current one"),
    ({"element_id": "note"}, "no button 'note'"),
    ({"action": "escalate_risk"}, "not 'escalate_risk'"),
    ({"idempotency_key": ""}, "no idempotency key"),
])
def test_authorize_checks_identity_element_action_and_key(change, reason):
    found = authorize(UI, {**GOOD, **change})
    assert (found is None) if reason is None else (reason in found)


def test_confirm_in_the_graph_is_done_once_and_a_replay_changes_nothing():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
    from langgraph.types import Command

    async def go():
        graph = G.build_graph()
        graph.checkpointer, graph.store = InMemorySaver(), InMemoryStore()
        config = {"configurable": {"thread_id": "t-confirm"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42\nscript: confirm")]}, config)
        [pending] = (await graph.aget_state(config)).interrupts
        cid = pending.value["tool_call"]["id"]
        await graph.ainvoke(Command(resume={pending.id: {cid: ok_result("read_local_draft", cid, DRAFT)}}), config)
        state = await graph.aget_state(config)
        [ask] = state.interrupts
        assert ask.value["type"] == "ui_action_request"
        assert ask.value["actions"][0]["element_id"] == "confirm"
        identity = state.values["ui_spec"]["identity"]
        request = {**GOOD, "identity": identity, "idempotency_key": f"ui:{identity['tool_call_id']}:confirm"}
        results = []
        for attempt in (request, request, {**request, "action": "escalate_risk", "idempotency_key": "k2"}):
            [ask] = (await graph.aget_state(config)).interrupts
            await graph.ainvoke(Command(resume={ask.id: attempt}), config)
            results.append((await graph.aget_state(config)).values["ui_action_result"])
        assert [r["status"] for r in results] == ["done", "replayed", "refused"]
        assert results[0]["result"] == {"work_order": "work-order:inspection-42:risk-1", "created": True}
        values = (await graph.aget_state(config)).values
        assert len(values["ui_actions"]) == 1
        orders = await graph.store.asearch(("sitewalk", "work_orders"))
        assert [o.key for o in orders] == ["work-order:inspection-42:risk-1"]
        assert values["messages"][-1].content == "Work order work-order:inspection-42:risk-1 created."

    asyncio.run(go())
