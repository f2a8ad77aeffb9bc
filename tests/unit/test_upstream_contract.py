"""The private LangChain / LangGraph names of `sitewalk_agent.upstream`: still there, same signature,
same behaviour. A release that changes one fails here, by name, not in a review or an audit record.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, TypedDict

from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.agents.middleware import human_in_the_loop as hitl
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph import types as lg_types
from langgraph._internal import _constants
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt

from sitewalk_agent import upstream
from sitewalk_agent.review import ReviewMiddleware


def params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_private_names_exist_with_the_signatures_relied_on():
    assert params(HumanInTheLoopMiddleware._resolve_per_call) == ["self", "request"]
    assert params(HumanInTheLoopMiddleware._tool_approval_request) == ["self", "request", "config"]
    assert params(HumanInTheLoopMiddleware._apply_edit) == ["self", "request", "executed"]
    assert params(hitl._answer_message) == ["tool_call", "decision"]
    assert params(lg_types._interrupt_id) == ["ns", "answered"]
    assert _constants.CONFIG_KEY_RUNTIME == "__pregel_runtime"
    assert "response_schema" in params(lg_types.interrupt)


def test_review_overrides_no_private_name_itself():
    private = {name for name in vars(ReviewMiddleware) if name.startswith("_") and not name.startswith("__")}
    assert private == set()  # the private step is overridden once, in PerCallReview
    assert ReviewMiddleware._resolve_per_call is upstream.PerCallReview._resolve_per_call


CALL = {"name": "file_work_order", "args": {"title": "rust"}, "id": "call-1", "type": "tool_call"}


def request() -> ToolCallRequest:
    return ToolCallRequest(tool_call=dict(CALL), tool=None, state={}, runtime=None)  # type: ignore[arg-type]


def test_per_call_mode_asks_the_private_step_and_returns_its_message_without_running_the_tool():
    told = ToolMessage(content="no", tool_call_id="call-1", name="file_work_order")

    class Refusing(upstream.PerCallReview):
        def resolve_call(self, request: ToolCallRequest) -> upstream.Resolved:
            return told

    ran: list[Any] = []

    async def handler(req: ToolCallRequest) -> ToolMessage:
        ran.append(req)
        return ToolMessage(content="ran", tool_call_id="call-1")

    middleware = Refusing({"file_work_order": True}, interrupt_mode="per_call")
    assert asyncio.run(middleware.awrap_tool_call(request(), handler)) is told and ran == []


def test_an_edit_points_the_request_at_the_edited_args():
    middleware = upstream.PerCallReview({"file_work_order": True}, interrupt_mode="per_call")
    edited = middleware.apply_edit(request(), {"name": "file_work_order", "args": {"title": "bolt"}})
    assert edited.tool_call["args"] == {"title": "bolt"} and edited.tool_call["id"] == "call-1"


def test_a_rejection_is_an_error_tool_message_naming_the_reason():
    message = upstream.answer_message(CALL, {"type": "reject", "message": "wrong site"})
    assert isinstance(message, ToolMessage) and message.status == "error"
    assert message.tool_call_id == "call-1" and message.name == "file_work_order"
    assert "wrong site" in str(message.content)


class State(TypedDict, total=False):
    answers: list[str]


def test_interrupt_ids_and_the_steps_checkpoint_are_what_the_graph_gives():
    seen: dict[str, Any] = {}

    def ask_twice(state: State, config: RunnableConfig) -> State:
        seen["ns"] = config["configurable"]["checkpoint_ns"]
        seen["checkpoint"] = upstream.step_checkpoint_id(config["configurable"])
        return {"answers": [interrupt("first?"), interrupt("second?")]}

    builder = StateGraph(State)
    builder.add_node("ask", ask_twice)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    first = graph.invoke({}, config)["__interrupt__"][0]
    assert first.id == upstream.interrupt_id(seen["ns"], 0)
    second = graph.invoke(Command(resume={first.id: "a"}), config)["__interrupt__"][0]
    assert second.id == upstream.interrupt_id(seen["ns"], 1) != first.id
    history = {snapshot.config["configurable"]["checkpoint_id"] for snapshot in graph.get_state_history(config)}
    assert seen["checkpoint"] in history
