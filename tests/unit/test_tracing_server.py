"""The server's spans of an inspection, in-process (sitewalk_agent.tracing), read from OpenTelemetry's
InMemorySpanExporter: each run goes through the graph factory the servers call (`tracing.graph.inspection`),
so every run of a thread is in the inspection's one trace under its root span; the headless and review
interrupt values name the span the browser's work nests under; a replay or a fork is a trace of its own,
linked to the inspection it left. With tracing off nothing of it is installed or imported."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sitewalk_agent.tracing import setup
from sitewalk_agent.tracing.graph import inspection
from sitewalk_agent.tracing.interrupts import REVIEW_SPAN
from sitewalk_agent.tracing.run_context import ROOT_SPAN
from sitewalk_shared.contracts.envelope import ok_result
from sitewalk_shared.contracts.headless_wire import parse_headless_interrupt
from sitewalk_shared.contracts.trace_wire import inspection_root, parse_traceparent

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """Tracing on, exporting to memory (the OTLP endpoint is never called: the provider is ours)."""
    monkeypatch.setenv("SITEWALK_TRACES", "http://127.0.0.1:9/v1/traces")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    setup.install(provider)
    yield exporter
    setup.uninstall()


@pytest.fixture(autouse=True)
def workorders(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))


class Server:
    """Runs as the agent servers do: the factory held open while the run streams, one checkpointer and store."""

    def __init__(self) -> None:
        self.saver, self.store = InMemorySaver(), InMemoryStore()
        self.graph: Any = None

    async def run(self, value: Any, config: dict[str, Any]) -> list[Any]:
        runtime = SimpleNamespace(access_context="threads.create_run", store=self.store)
        async with inspection(config, cast(Any, runtime)) as graph:
            self.graph = graph.copy(update={"checkpointer": self.saver, "store": self.store})
            await self.graph.ainvoke(value, config)
        return list((await self.graph.aget_state(_thread(config))).interrupts)


def _thread(config: dict[str, Any]) -> dict[str, Any]:
    return {"configurable": {"thread_id": config["configurable"]["thread_id"]}}


def _config(thread: str, **more: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "fragment_delay_ms": 0, **more}}


def _hex(span: ReadableSpan) -> tuple[str, str, str | None]:
    ctx = span.get_span_context()
    assert ctx is not None
    return f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}", f"{span.parent.span_id:016x}" if span.parent else None


def _by_id(exporter: InMemorySpanExporter) -> dict[str, ReadableSpan]:
    return {_hex(s)[1]: s for s in exporter.get_finished_spans()}


def _ancestors(span: ReadableSpan, by_id: dict[str, ReadableSpan]) -> list[str]:
    names, parent = [], _hex(span)[2]
    while parent in by_id:
        names.append(by_id[parent].name)
        parent = _hex(by_id[parent])[2]
    return names


async def _headless_inspection(server: Server, thread: str) -> tuple[Any, str]:
    [pending] = await server.run({"messages": [HumanMessage("Start inspection inspection-42")]}, _config(thread))
    call_id = pending.value["tool_call"]["id"]
    await server.run(Command(resume={pending.id: {call_id: ok_result("read_local_draft", call_id, DRAFT)}}),
                     _config(thread))
    return pending, call_id


def test_every_run_of_an_inspection_is_one_trace_under_its_root_and_the_headless_call_names_its_span(spans):
    server = Server()
    pending, call_id = asyncio.run(_headless_inspection(server, "t-one"))
    root = inspection_root("t-one")
    finished = spans.get_finished_spans()
    assert {_hex(s)[0] for s in finished} == {root.trace_id}  # both runs, every span: one trace
    [root_span] = [s for s in finished if s.name == ROOT_SPAN]  # exported once, with the agreed ids
    assert _hex(root_span) == (root.trace_id, root.span_id, None)
    runs = [s for s in finished if s.name == "inspection"]
    assert len(runs) == 2 and all(_hex(s)[2] == root.span_id for s in runs)
    assert all(s.attributes["sitewalk.thread_id"] == "t-one" for s in finished)
    # the interrupt names the tool call's span: the browser's spans go under it
    parent = parse_traceparent(pending.value["traceparent"])
    tool_span = _by_id(spans)[parent.span_id]
    assert (parent.trace_id, tool_span.name) == (root.trace_id, "read_local_draft")
    assert tool_span.attributes["sitewalk.tool_call_id"] == call_id
    assert _ancestors(tool_span, _by_id(spans)) == ["tools", "inspection", ROOT_SPAN]


def test_an_interrupt_names_the_checkpoint_its_step_started_from_the_one_the_state_waits_at(spans):
    """The value's `checkpoint_id` (for the device's spans, which may have read the interrupt from a stream)
    is the checkpoint the thread's state is at while the interrupt waits; the tool call's span carries it too."""
    async def scenario() -> tuple[Any, str, Any, str]:
        server = Server()
        [pending] = await server.run({"messages": [HumanMessage("Start inspection inspection-42")]}, _config("t-cp"))
        waiting = (await server.graph.aget_state(_thread(_config("t-cp")))).config["configurable"]["checkpoint_id"]
        review = await server.run({"messages": [HumanMessage("Start inspection inspection-42 script: review")]},
                                  _config("t-cp-review"))
        order = next(i for i in review if i.value["name"] == "create_work_order")
        state = await server.graph.aget_state(_thread(_config("t-cp-review")))
        return pending, waiting, order, state.config["configurable"]["checkpoint_id"]

    pending, waiting, order, review_waiting = asyncio.run(scenario())
    assert pending.value["checkpoint_id"] == waiting
    tool_span = _by_id(spans)[parse_traceparent(pending.value["traceparent"]).span_id]
    assert tool_span.attributes["sitewalk.checkpoint_id"] == waiting
    assert order.value["checkpoint_id"] == review_waiting
    assert parse_headless_interrupt(pending.value).checkpoint_id == waiting


def test_a_review_names_a_review_span_and_the_approved_work_order_is_in_the_same_trace(spans):
    async def scenario() -> None:
        server = Server()
        pending = await server.run({"messages": [HumanMessage("Start inspection inspection-42 script: review")]},
                                   _config("t-review"))
        order = next(i for i in pending if i.value["name"] == "create_work_order")
        parent = parse_traceparent(order.value["traceparent"])
        assert parent is not None
        review = _by_id(spans)[parent.span_id]
        assert review.name == REVIEW_SPAN and parent.trace_id == inspection_root("t-review").trace_id
        attrs = dict(review.attributes or {})
        assert attrs["sitewalk.tool_call_id"] == order.value["tool_call_id"] and attrs["sitewalk.args_revision"] == 1
        assert not any(json.dumps(order.value["args"]) in str(v) for v in attrs.values())
        decision = {"type": "approve", "args_revision": 1, "args_hash": order.value["args_hash"]}
        await server.run(Command(resume={order.id: decision}), _config("t-review"))

    asyncio.run(scenario())
    [filed] = [s for s in spans.get_finished_spans() if s.name == "create_work_order"]
    assert _hex(filed)[0] == inspection_root("t-review").trace_id
    assert _ancestors(filed, _by_id(spans))[-1] == ROOT_SPAN


def test_a_replay_from_a_checkpoint_is_a_trace_of_its_own_linked_to_the_inspection_and_later_runs_follow(spans):
    async def scenario() -> str:
        server = Server()
        await _headless_inspection(server, "t-fork")
        history = [s async for s in server.graph.aget_state_history(_thread(_config("t-fork")))]
        asked = next(s for s in history if s.interrupts)  # the checkpoint where read_local_draft was asked
        checkpoint = asked.config["configurable"]["checkpoint_id"]
        spans.clear()
        await server.run(None, _config("t-fork", checkpoint_id=checkpoint))  # the ledger answers the replay
        # a later run names no checkpoint: it continues the replay's branch, so its trace too
        await server.run({"messages": [HumanMessage("Start inspection inspection-43")]}, _config("t-fork"))
        return checkpoint

    checkpoint = asyncio.run(scenario())
    replay, original = inspection_root("t-fork", checkpoint), inspection_root("t-fork")
    finished = spans.get_finished_spans()
    assert {_hex(s)[0] for s in finished} == {replay.trace_id}
    assert len([s for s in finished if s.name == "inspection"]) == 2  # the replay and the later run
    [root_span] = [s for s in finished if s.name == ROOT_SPAN]
    assert _hex(root_span) == (replay.trace_id, replay.span_id, None)
    attrs = dict(root_span.attributes or {})
    assert attrs["sitewalk.forked_from"] == checkpoint
    assert (attrs["sitewalk.forked_from_trace_id"], attrs["sitewalk.forked_from_span_id"]) == \
        (original.trace_id, original.span_id)
    [link] = root_span.links
    assert (f"{link.context.trace_id:032x}", f"{link.context.span_id:016x}") == (original.trace_id, original.span_id)


def test_reads_of_the_graph_are_not_traced_as_runs(spans):
    async def scenario() -> None:
        runtime = SimpleNamespace(access_context="threads.read", store=InMemoryStore())
        async with inspection(_config("t-read"), cast(Any, runtime)):
            pass

    asyncio.run(scenario())
    assert spans.get_finished_spans() == ()


OFF = """
import asyncio, sys
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from sitewalk_agent.graph import build_graph
graph = build_graph(); graph.checkpointer = InMemorySaver()
config = {"configurable": {"thread_id": "t", "fragment_delay_ms": 0}}
asyncio.run(graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42")]}, config))
[pending] = graph.get_state(config).interrupts
assert "traceparent" not in pending.value and "checkpoint_id" not in pending.value, pending.value
assert not any(m.startswith(("openinference", "sitewalk_agent.tracing.")) for m in sys.modules)
assert not isinstance(trace.get_tracer_provider(), TracerProvider)
print("off")
"""


def test_with_tracing_off_nothing_is_installed_or_imported_and_no_traceparent_is_sent():
    env = {k: v for k, v in __import__("os").environ.items() if k != "SITEWALK_TRACES"}
    done = subprocess.run([sys.executable, "-c", OFF], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "off", done.stderr[-2000:]


ON = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from openinference.instrumentation.langchain import LangChainInstrumentor
import sitewalk_agent.graph
assert isinstance(trace.get_tracer_provider(), TracerProvider)
assert LangChainInstrumentor().is_instrumented_by_opentelemetry
print("on")
"""


def test_with_tracing_on_the_graph_module_installs_the_provider_at_the_servers_start():
    """Without the tracing factory (a langgraph.json of the operator's own) the spans still go out."""
    env = {**__import__("os").environ, "SITEWALK_TRACES": "http://127.0.0.1:9/v1/traces"}
    done = subprocess.run([sys.executable, "-c", ON], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "on", done.stderr[-2000:]
