"""An edited call's result, as LangChain's review writes it (the edit notice, then the tool's response), read
by every reader: the shared reader, the scripted agent's summary, the call board, the audit trail. The tool
messages come from the real inspection graph (in memory), so a change of LangChain's notice shows here."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fake_agent_server import RecordingView
from graphs_for_tests import in_memory_graph
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command

from sitewalk.session.calls import CallBoard
from sitewalk_agent.audit.record import tool_outcome
from sitewalk_agent.demo.scripted_model import REVIEW_SUBJECTS
from sitewalk_shared.contracts.envelope import is_outcome_unknown
from sitewalk_shared.contracts.tool_result import read_tool_result, tool_envelope

EDITED = {"subject": "Replace the east rail bolt", "priority": "urgent"}


@pytest.fixture(scope="module")
def decided(tmp_path_factory: Any) -> tuple[list[Any], dict[str, Any]]:
    """`script: review` decided: the first order edited, the second approved, the notice rejected."""
    async def go() -> tuple[list[Any], dict[str, Any]]:
        graph = in_memory_graph()
        config = {"configurable": {"thread_id": "t-edited"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: review")]}, config)
        pending = (await graph.aget_state(config)).interrupts
        named = {i.value["args"].get("subject", i.value["name"]): i for i in pending}
        first, second = named[REVIEW_SUBJECTS[0]], named[REVIEW_SUBJECTS[1]]
        notice = named["notify_site_manager"]

        def base(i: Any) -> dict[str, Any]:
            return {"args_revision": 1, "args_hash": i.value["args_hash"]}

        await graph.ainvoke(Command(resume={
            first.id: {"type": "edit", **base(first),
                       "edited_action": {"name": "create_work_order", "args": {**first.value["args"], **EDITED}}},
            second.id: {"type": "approve", **base(second)},
            notice.id: {"type": "reject", **base(notice), "message": "not today"}}), config)
        messages = (await graph.aget_state(config)).values["messages"]
        return messages, {"first": first.value["tool_call_id"], "second": second.value["tool_call_id"]}

    with pytest.MonkeyPatch.context() as env:  # a work-order database of its own
        env.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path_factory.mktemp("wo") / "workorders.sqlite3"))
        return asyncio.run(go())


def _tool(messages: list[Any], call_id: str) -> ToolMessage:
    return next(m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id)


def test_the_reader_splits_the_notice_from_the_response(decided: Any) -> None:
    messages, calls = decided
    edited, approved = _tool(messages, calls["first"]), _tool(messages, calls["second"])
    read = read_tool_result(edited.content)
    assert str(edited.content).startswith("Note: a human reviewer replaced this tool call")  # LangChain's own
    assert read.executed == {"name": "create_work_order",
                             "args": {"inspection_id": "inspection-42", **EDITED}}
    envelope = tool_envelope(edited.content)
    assert envelope is not None and envelope["ok"] is True
    assert isinstance(result := envelope["result"], dict) and result["work_order"].startswith("WO-")
    assert read_tool_result(approved.content).executed is None and (tool_envelope(approved.content) or {})["ok"]
    assert not is_outcome_unknown(edited.content)
    assert tool_outcome(edited)[0] == "succeeded"


def test_the_agent_reports_an_edited_call_as_done_with_what_ran(decided: Any) -> None:
    messages, _ = decided
    said = str(messages[-1].content)
    assert "create_work_order not run" not in said  # the old reading took the notice for a refusal
    assert "create_work_order done, as the reviewer edited it (" in said and "priority: urgent" in said
    assert said.count(": work order WO-") == 2 and "notify_site_manager not run" in said


def test_the_call_board_shows_the_executed_args_and_the_order_filed(decided: Any) -> None:
    messages, calls = decided
    view = RecordingView()
    CallBoard(view).settle([m.model_dump() for m in messages])
    [args] = [e for e in view.events if e[0] == "tool_args" and e[1] == calls["first"]]
    assert json.loads(args[2]) == {"inspection_id": "inspection-42", **EDITED} and args[3] is True  # replaced
    order = tool_envelope(_tool(messages, calls["first"]).content)["result"]["work_order"]  # type: ignore[index]
    ended = [e for e in view.events if e[0] == "tool_call" and e[2] == "succeeded"]
    details = {e[3] for e in ended if e[1] == "create_work_order"}
    assert f"edited by the reviewer; work order {order} filed" in details
    assert any(d.startswith("work order WO-") and d.endswith(" filed") for d in details)  # the approved one
    assert not [e for e in view.events if e[0] == "tool_args" and e[1] == calls["second"]]  # proposed = ran


def test_an_order_found_again_is_said_so() -> None:
    from sitewalk.session.calls import ran_detail

    body = json.dumps({"ok": True, "result": {"work_order": "WO-7", "created": False, "replayed": True}})
    assert ran_detail(read_tool_result(body), failed=False) == "work order WO-7 found again"
    content = [{"type": "text", "text": "Note: a human reviewer replaced this tool call before it ran. Executed "
                "instead: create_work_order with arguments {\"priority\": \"low\"}.\n\nTool response:"}, body]
    assert read_tool_result(content).executed == {"name": "create_work_order", "args": {"priority": "low"}}
    assert tool_envelope(content) == json.loads(body)
