"""Two walk_site calls in one message: the first walks, the second gets the typed refusal
`one_walk_at_a_time` (a failed call in the app's list), and no question is asked twice."""

from __future__ import annotations

import asyncio
import json

from graphs_for_tests import in_memory_graph
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command

from sitewalk.calls.lifecycle import CallStatus
from sitewalk.session.calls import CallBoard
from sitewalk_agent.site_walk import WALK_TOOL
from sitewalk_shared.contracts.envelope import ErrorCode, ok_result, parse_result

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
TWICE = "Start inspection inspection-42\nscript: site-walk-twice"
ANSWERS = {"handrail_secure": "yes", "corroded_bolts": 3}


async def walk_twice(graph, config, answers=ANSWERS) -> list[str]:
    """Run `script: site-walk-twice` to its end, answering the draft and each question; the questions asked."""
    asked: list[str] = []
    await graph.ainvoke({"messages": [HumanMessage(TWICE)]}, config)
    while (state := await graph.aget_state(config)).interrupts:
        (pending,) = state.interrupts
        value = pending.value
        if value["type"] == "tool":
            cid = value["tool_call"]["id"]
            resume = {cid: ok_result("read_local_draft", cid, DRAFT)}
        else:
            asked.append(value["question_id"])
            resume = {"question_id": value["question_id"], "answer": answers[value["question_id"]]}
        await graph.ainvoke(Command(resume={pending.id: resume}), config)
    return asked


def walk_messages(messages) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage) and m.name == WALK_TOOL]


def test_the_first_walks_and_the_second_is_a_typed_refusal_nothing_asked_twice():
    graph, config = in_memory_graph(), {"configurable": {"thread_id": "twice"}}
    asked = asyncio.run(walk_twice(graph, config))
    assert asked == ["handrail_secure", "corroded_bolts"]
    messages = graph.get_state(config).values["messages"]
    walked, refused = walk_messages(messages)
    assert walked.status == "success" and json.loads(walked.content)["result"]["answers"][1]["answer"] == 3
    assert refused.status == "error"
    envelope = parse_result(json.loads(refused.content), tool=WALK_TOOL, tool_call_id=refused.tool_call_id)
    assert not envelope.ok and envelope.error.code is ErrorCode.one_walk_at_a_time
    assert envelope.tool_call_id == refused.tool_call_id != walked.tool_call_id
    assert f"the walk already asked (call {walked.tool_call_id}) is the one answered" in envelope.error.message
    assert envelope.error.detail == {"walked_call_id": walked.tool_call_id}
    said = messages[-1].content
    assert "Corroded bolts: 3" in said and "1 more walk refused (one at a time)" in said


def test_the_app_lists_the_refused_walk_as_failed_with_its_message():
    graph, config = in_memory_graph(), {"configurable": {"thread_id": "twice-app"}}
    asyncio.run(walk_twice(graph, config))
    values = graph.get_state(config).values
    board = CallBoard(_View())
    board.settle([m.model_dump() for m in values["messages"] if isinstance(m, ToolMessage)])
    walked, refused = walk_messages(values["messages"])
    assert board.status(walked.tool_call_id) is CallStatus.SUCCEEDED
    assert board.status(refused.tool_call_id) is CallStatus.FAILED
    shown = [e for e in board.view.events if e[1] == refused.tool_call_id][-1]
    assert shown[3].startswith("one_walk_at_a_time: one site walk at a time: the walk already asked")


class _View:
    """What the board shows: (kind, call id, state, detail), like the app's tool-call list."""

    def __init__(self):
        self.events = []

    def tool_call(self, call_id, name, state, detail="", answer=None):
        self.events.append(("tool_call", call_id, str(state), detail))

    def __getattr__(self, name):
        return lambda *args, **kwargs: None
