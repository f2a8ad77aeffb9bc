"""The scripted model's follow-ups: the phrases of its docstring, in plan_turn and through the graph."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from sitewalk_agent import graph as G
from sitewalk_agent.demo.scripted_model import FOLLOW_UP_DEFAULT, NO_SCREEN_YET, card_spec, plan_turn
from sitewalk_shared.contracts.envelope import ok_result
from sitewalk_shared.ui_spec.inline import apply_inline_spec

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "low"}
SHOWN = [
    HumanMessage("Start inspection inspection-42"),
    AIMessage("", tool_calls=[{"id": "call_r", "name": "render_ui", "args": card_spec(DRAFT)}]),
    ToolMessage('{"ok":true,"revision":1}', tool_call_id="call_r", name="render_ui"),
    AIMessage("The card for inspection-42 is on screen."),
]


@pytest.mark.parametrize("level", ["critical", "high", "medium", "low"])
def test_the_risk_is_level_patches_the_badge_of_the_screen_on_record(level):
    turn = plan_turn([*SHOWN, HumanMessage(f"I looked again: the Risk is {level.upper()}.")])
    assert turn.calls == []
    spec, issues = apply_inline_spec(turn.text, card_spec(DRAFT))
    assert issues == []
    assert spec["elements"]["risk"]["props"] == {"level": level, "label": f"Risk: {level}"}
    assert spec["elements"]["card"] == card_spec(DRAFT)["elements"]["card"]  # nothing else changed


def test_add_finding_appends_to_the_card():
    turn = plan_turn([*SHOWN, HumanMessage("add finding:  loose bolt   on the east rail")])
    spec, issues = apply_inline_spec(turn.text, card_spec(DRAFT))
    assert issues == [] and spec["elements"]["card"]["props"]["findings"] == ["crack", "loose bolt on the east rail"]
    assert turn.text.startswith("Added the finding: loose bolt on the east rail.")


def test_anything_else_gets_the_fixed_answer_and_no_patch():
    turn = plan_turn([*SHOWN, HumanMessage("How long will this take?")])
    assert turn.text == FOLLOW_UP_DEFAULT and apply_inline_spec(turn.text, card_spec(DRAFT)) is None


def test_propose_asks_for_the_reviewed_field_actions_of_the_conversations_inspection():
    turn = plan_turn([*SHOWN, HumanMessage("Please propose the work orders")])
    assert [name for name, _ in turn.calls] == ["create_work_order", "create_work_order", "notify_site_manager"]
    assert {args["inspection_id"] for _, args in turn.calls} == {"inspection-42"}


def test_a_follow_up_without_a_screen_changes_nothing():
    turn = plan_turn([HumanMessage("Start inspection inspection-42"), AIMessage("Which one?"),
                      HumanMessage("the risk is high")])
    assert turn.text == NO_SCREEN_YET


def test_the_first_message_still_opens_the_inspection():
    assert plan_turn([HumanMessage("the risk is high in inspection-42")]).tool == "read_local_draft"


def test_the_graph_keeps_the_changed_risk_in_ui_spec():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t", "fragment_delay_ms": 0}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42")]}, config)
        [pending] = (await graph.aget_state(config)).interrupts
        call_id = pending.value["tool_call"]["id"]
        await graph.ainvoke(Command(resume={pending.id: {call_id: ok_result("read_local_draft", call_id, DRAFT)}}),
                            config)
        before = (await graph.aget_state(config)).values["ui_spec"]
        await graph.ainvoke({"messages": [HumanMessage("the risk is critical")]}, config)
        return before, (await graph.aget_state(config)).values

    before, values = asyncio.run(go())
    assert before["elements"]["risk"]["props"]["level"] == "low"
    assert values["ui_spec"]["elements"]["risk"]["props"]["level"] == "critical"
    assert values["ui_spec"]["identity"]["revision"] > before["identity"]["revision"]
    assert json.dumps(values["ui_spec"]["elements"]["card"]) == json.dumps(before["elements"]["card"])


def test_a_refused_inline_screen_is_no_screen_on_record():
    from sitewalk_agent.inline_ui import REFUSAL_NAME

    refused = [HumanMessage("Start inspection inspection-42"),
               AIMessage('Understood.\n{"op":"replace","path":"/elements/risk/props/level","value":"high"}\n'),
               HumanMessage("The screen in your last reply was refused", name=REFUSAL_NAME),
               AIMessage("That change to the screen was refused."), HumanMessage("the risk is critical")]
    assert plan_turn(refused).text == NO_SCREEN_YET


def test_the_risk_on_an_inspection_with_no_screen_changes_nothing_through_the_graph(tmp_path, monkeypatch):
    """`script: review` never shows a screen: the system prompt's JSON-patch example is not a screen."""
    from graphs_for_tests import in_memory_graph
    from langgraph.types import Command

    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))

    async def go():
        graph = in_memory_graph()
        config = {"configurable": {"thread_id": "t-no-screen", "fragment_delay_ms": 0}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: review")]}, config)
        reviews = (await graph.aget_state(config)).interrupts
        await graph.ainvoke(Command(resume={i.id: {"type": "reject", "args_revision": 1, "message": "not today",
                                                   "args_hash": i.value["args_hash"]} for i in reviews}), config)
        before = (await graph.aget_state(config)).values
        await graph.ainvoke({"messages": [HumanMessage("the risk is critical")]}, config)
        return before, (await graph.aget_state(config)).values

    before, after = asyncio.run(go())
    added = after["messages"][len(before["messages"]):]
    assert [type(m).__name__ for m in added] == ["HumanMessage", "AIMessage"]  # no refusal, no repair round
    assert added[-1].content == NO_SCREEN_YET and '{"op":' not in added[-1].content
    assert after.get("ui_spec") == before.get("ui_spec")
