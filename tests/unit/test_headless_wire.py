"""The headless wire values (sitewalk_shared.contracts.headless_wire): the one parser of a headless interrupt,
and a round trip from the agent's real graph (the writer) through the browser's registry (the reader)."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage, ToolMessage
from memory_storage import MemoryStore

from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.timeline.ahead import device_calls_ahead
from sitewalk_agent import graph as G
from sitewalk_shared.contracts.envelope import ok_result
from sitewalk_shared.contracts.headless_wire import (
    ContractStamp,
    HeadlessRequest,
    answer_in,
    headless_interrupt,
    parse_headless_interrupt,
    resume_for,
)
from sitewalk_shared.contracts.tools import PROTOCOL_VERSION, READ_LOCAL_DRAFT

DRAFT = {"site": "Pier 4", "inspector": "Ana", "findings": ["rust on rail"], "risk": "high"}
STAMP = ContractStamp(protocol=PROTOCOL_VERSION, digest=READ_LOCAL_DRAFT.digest)


def test_the_interrupt_the_agent_writes_reads_back_as_the_same_call():
    value = headless_interrupt("call_1", "read_local_draft", {"inspection_id": "i-1"}, STAMP)
    assert value == {"type": "tool", "tool_call": {"id": "call_1", "name": "read_local_draft",
                                                   "args": {"inspection_id": "i-1"}},
                     "contract": {"protocol": PROTOCOL_VERSION, "digest": READ_LOCAL_DRAFT.digest}}
    assert parse_headless_interrupt(value) == HeadlessRequest("call_1", "read_local_draft", {"inspection_id": "i-1"},
                                                              STAMP)
    assert "contract" not in headless_interrupt("call_1", "x", {})  # the SDK's own shape, no handshake block


def test_the_sdks_tool_call_spelling_is_read_too():
    value = {"type": "tool", "toolCall": {"id": "c", "name": "x", "args": {"a": 1}}}
    assert parse_headless_interrupt(value) == HeadlessRequest("c", "x", {"a": 1})


@pytest.mark.parametrize("value", [
    None, "text", ["tool"], {"type": "tool_approval", "tool_call": {"name": "x"}}, {"type": "question"},
    {"type": "tool"}, {"type": "tool", "tool_call": "x"}, {"type": "tool", "tool_call": {"name": 3}},
    {"type": "tool", "tool_call": {"id": "c"}}, {"type": "tool", "tool_call": {}},
])
def test_a_value_the_sdk_would_not_run_as_a_headless_tool_is_none(value):
    assert parse_headless_interrupt(value) is None


def test_fields_the_sdk_does_not_check_are_read_as_the_readers_always_did():
    assert parse_headless_interrupt({"type": "tool", "tool_call": {"name": "x"}}) == HeadlessRequest("", "x", {})
    assert parse_headless_interrupt({"type": "tool", "tool_call": {"id": 7, "name": "x", "args": None}}) == \
        HeadlessRequest("7", "x", {})
    odd = {"type": "tool", "tool_call": {"id": "c", "name": "x", "args": [1]}, "contract": "v2"}
    assert parse_headless_interrupt(odd) == HeadlessRequest("c", "x", [1], None)  # args kept for the contract
    no_protocol = {"type": "tool", "tool_call": {"id": "c", "name": "x"}, "contract": {"digest": 5}}
    assert parse_headless_interrupt(no_protocol).contract == {"protocol": "", "digest": "5"}


def test_malformed_arguments_end_in_a_typed_envelope_not_an_exception():
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(MemoryStore()))
    value = {"type": "tool", "tool_call": {"id": "c", "name": "read_local_draft", "args": ["i-1"]}}
    answer = asyncio.run(registry.answer(value))
    assert answer["c"]["ok"] is False and answer["c"]["error"]["code"] == "invalid_args"


def test_the_answer_is_read_keyed_by_call_id_or_bare():
    envelope = ok_result("read_local_draft", "c", DRAFT)
    assert resume_for(envelope) == {"c": envelope}
    assert answer_in(resume_for(envelope), "c") == envelope
    assert answer_in({"error": "boom"}, "c") == {"error": "boom"}  # the SDK's bare error
    assert answer_in("text", "c") == "text"


def test_the_timeline_sees_the_call_through_the_same_parser():
    value = headless_interrupt("call_9", "read_local_draft", {"inspection_id": "i-1"})
    state = {"tasks": [{"interrupts": [{"id": "int-1", "value": value}]}], "values": {"messages": []}}
    assert device_calls_ahead(state, {"read_local_draft"}) == [("read_local_draft", "call_9")]
    sdk = {"type": "tool", "toolCall": {"id": "call_8", "name": "read_local_draft"}}
    state = {"tasks": [{"interrupts": [{"id": "int-2", "value": sdk}]}], "values": {"messages": []}}
    assert device_calls_ahead(state, {"read_local_draft"}) == [("read_local_draft", "call_8")]


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=20)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=4)


@given(st.text(min_size=1), st.text(), json_objects, st.text(), st.text())
def test_any_call_the_agent_writes_reads_back_unchanged(call_id, name, args, protocol, digest):
    stamp = ContractStamp(protocol=protocol, digest=digest)
    request = parse_headless_interrupt(json.loads(json.dumps(headless_interrupt(call_id, name, args, stamp))))
    assert request is not None
    assert (request.tool_call_id, request.name, request.args) == (call_id, name, args)
    assert request.contract == stamp


@given(st.one_of(json_values, st.fixed_dictionaries({"type": st.just("tool")}, optional={
    "tool_call": json_values, "toolCall": json_values, "contract": json_values})))
def test_any_json_value_is_a_request_or_none_never_an_exception(value):
    request = parse_headless_interrupt(value)
    assert request is None or (isinstance(request.tool_call_id, str) and isinstance(request.name, str))


def test_round_trip_from_the_agents_graph_through_the_browsers_registry():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    async def go():
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t-wire", "fragment_delay_ms": 0}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42")]}, config)
        [pending] = (await graph.aget_state(config)).interrupts
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(MemoryStore({draft_key("inspection-42"):
                                                                             json.dumps(DRAFT)})))
        answer = await registry.answer(pending.value)  # the browser's reader, on the agent's value
        await graph.ainvoke(Command(resume={pending.id: answer}), config)
        return parse_headless_interrupt(pending.value), (await graph.aget_state(config)).values

    request, values = asyncio.run(go())
    assert request.name == "read_local_draft" and request.contract == STAMP
    [message] = [m for m in values["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == request.tool_call_id]
    outcome = json.loads(message.content)
    assert message.status == "success" and outcome["ok"] is True and outcome["result"]["site"] == "Pier 4"


TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_the_traceparent_rides_with_the_call_only_when_given_and_reads_back_parsed():
    value = headless_interrupt("call_1", "x", {}, STAMP, traceparent=TRACEPARENT)
    assert value["traceparent"] == TRACEPARENT
    assert parse_headless_interrupt(value).traceparent == TRACEPARENT
    assert "traceparent" not in headless_interrupt("call_1", "x", {}, STAMP)  # the server does not trace
    assert parse_headless_interrupt(headless_interrupt("call_1", "x", {})).traceparent is None


@pytest.mark.parametrize("bad", [7, "", "00-xyz", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                                 "00-00000000000000000000000000000000-00f067aa0ba902b7-01"])
def test_a_traceparent_that_is_not_a_valid_w3c_one_reads_as_none_and_the_call_still_runs(bad):
    request = parse_headless_interrupt({"type": "tool", "tool_call": {"id": "c", "name": "x"}, "traceparent": bad})
    assert request == HeadlessRequest("c", "x", {}) and request.traceparent is None
