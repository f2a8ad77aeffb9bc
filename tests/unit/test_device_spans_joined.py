"""The device's spans joined to the server's, in process: the inspection graph runs through the servers' tracing
factory (as in test_tracing_server.py), the device answers its headless interrupt with the session's own code
(`HeadlessAnswers`) with tracing on, and its spans go through the device-span check and exporter into the same
OpenTelemetry provider. Read back from OTel's InMemorySpanExporter: the device's span is a child of the tool
call's span the interrupt's traceparent named, in the inspection's one trace; and a sentinel in the draft's
local-only notes is in no span of either side (name, attribute or event)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.types import Command
from memory_storage import MemoryStore
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from test_session_live import RecordingView
from test_tracing_server import Server, _ancestors, _by_id, _config, _hex

from sitewalk.base import trace_hooks
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.session.answers import HeadlessAnswers
from sitewalk.session.calls import CallBoard
from sitewalk.session.cancel import Cancellation
from sitewalk.session.thread import Thread
from sitewalk.tracing import DeviceTracing, new_span_id
from sitewalk.tracing.recorder import Recorder
from sitewalk.tracing.sender import SpanSender
from sitewalk_agent.tracing import setup
from sitewalk_agent.tracing.device_spans import DeviceSpanExporter, read_batch
from sitewalk_agent.tracing.run_context import ROOT_SPAN
from sitewalk_shared.contracts.trace_wire import inspection_root, parse_traceparent

SENTINEL = "SENTINEL-notes-5a0b"
DRAFT = {"site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high", "notes": SENTINEL}


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    monkeypatch.setenv("SITEWALK_TRACES", "http://127.0.0.1:9/v1/traces")  # never called: the provider is ours
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", ":memory:")
    exporter = InMemorySpanExporter()
    made = TracerProvider()
    made.add_span_processor(SimpleSpanProcessor(exporter))
    setup.install(made)
    yield made, exporter
    setup.uninstall()
    trace_hooks.install(None)


async def device_answers(server_spans: DeviceSpanExporter, pending: Any, thread: str) -> Any:
    """The device's side: tracing on, the session's headless answering, then the run's flush, sent to the
    route's check and exporter."""
    async def post(batch: dict[str, Any]) -> object:
        result = server_spans.export(read_batch(json.loads(json.dumps(batch))))
        return {"exported": result.exported}

    recorder = Recorder(clock=time.time_ns, new_id=new_span_id)
    tracing = DeviceTracing(recorder, SpanSender(recorder, post), asyncio.ensure_future)
    trace_hooks.install(tracing)
    registry = HeadlessToolRegistry()
    drafts = MemoryStore({draft_key("inspection-42"): json.dumps(DRAFT)})
    registry.register("read_local_draft", read_local_draft(drafts))
    client: Any = None  # the state is given: the server is not asked
    answers = HeadlessAnswers(client, Thread(thread), registry, CallBoard(RecordingView()), Cancellation())
    answered = await answers.pending({"values": {}, "interrupts": [{"id": pending.id, "value": pending.value}]})
    trace_hooks.flush()
    for _ in range(50):
        await asyncio.sleep(0)
    return answered[pending.id]


def test_the_devices_headless_span_is_a_child_of_the_tool_calls_span_and_nothing_local_is_in_the_trace(provider):
    made, memory = provider

    async def inspection() -> Any:
        server = Server()
        [pending] = await server.run({"messages": [HumanMessage("Start inspection inspection-42")]}, _config("t-dev"))
        answer = await device_answers(DeviceSpanExporter(tracer_provider=made), pending, "t-dev")
        await server.run(Command(resume={pending.id: answer}), _config("t-dev"))
        return pending

    pending = asyncio.run(inspection())
    finished = memory.get_finished_spans()
    by_id = _by_id(memory)
    [device] = [s for s in finished if s.name == "device.headless_tool"]
    named = parse_traceparent(pending.value["traceparent"])
    assert _hex(device)[0] == inspection_root("t-dev").trace_id == named.trace_id
    assert _hex(device)[2] == named.span_id  # under the tool call's span the interrupt named
    assert _ancestors(device, by_id) == ["read_local_draft", "tools", "inspection", ROOT_SPAN]
    assert device.attributes["sitewalk.origin"] == "device"
    assert device.attributes["sitewalk.tool_call_id"] == pending.value["tool_call"]["id"]
    # the state it answered from names no checkpoint: the interrupt's (its step's) is the span's, as the tool's
    assert device.attributes["sitewalk.checkpoint_id"] == pending.value["checkpoint_id"]
    assert device.attributes["sitewalk.checkpoint_id"] == _by_id(memory)[named.span_id].attributes[
        "sitewalk.checkpoint_id"]
    assert device.attributes["sitewalk.result_bytes"] > 0
    for span in finished:  # both sides: the server's spans carry the tool result the agent got, never the notes
        text = json.dumps([span.name, dict(span.attributes or {}),
                           [[e.name, dict(e.attributes or {})] for e in span.events]], default=str)
        assert SENTINEL not in text, span.name
    assert any("Pier 7" in json.dumps(dict(s.attributes or {}), default=str) for s in finished)  # results are traced
