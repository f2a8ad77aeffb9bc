"""The device's span recorder and sender (sitewalk/tracing/, sitewalk/base/trace_hooks.py), under CPython:
off makes nothing; on, spans nest and name their parents (a traceparent, the inspection's root), keep only the
allowlist's attributes (a sentinel in a local-only field reaches no span), wait for their tree and their thread,
and are sent until the server has taken them, offline included, never exported twice."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sitewalk.base import trace_hooks
from sitewalk.base.server_errors import ServerUnreachable, error_for_status
from sitewalk.tracing import DeviceTracing, checkpoint_of, new_span_id
from sitewalk.tracing.boot import record_boot
from sitewalk.tracing.recorder import Recorder
from sitewalk.tracing.sender import SpanSender
from sitewalk_agent.tracing.device_spans import DeviceSpanExporter, read_batch
from sitewalk_shared.contracts.device_trace import span_issues
from sitewalk_shared.contracts.envelope import ErrorCode, error_result, ok_result
from sitewalk_shared.contracts.trace_wire import format_traceparent, inspection_root

SENTINEL = "SENTINEL-local-only-7f3a"
SERVER_TRACE, SERVER_SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
INTERRUPT = {"type": "tool", "tool_call": {"id": "call_1", "name": "get_current_location", "args": {}},
             "traceparent": format_traceparent(SERVER_TRACE, SERVER_SPAN)}


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000_000_000

    def __call__(self) -> int:
        self.now += 1_000_000
        return self.now


def ids() -> Any:
    count = iter(range(1, 10_000))
    return lambda: f"{next(count):016x}"


def recorder() -> Recorder:
    return Recorder(clock=Clock(), new_id=ids())


def sent(rec: Recorder) -> list[dict[str, Any]]:
    return [span for spans in rec.take_ready().values() for span in spans]  # type: ignore[misc]


def test_off_no_span_is_made_and_nothing_is_asked():
    assert not trace_hooks.on()
    asked: list[str] = []

    async def query(name: str) -> str:
        asked.append(name)
        return "granted"

    with trace_hooks.span("device.screen", tool_call_id="x") as traced:
        traced.answered({"ok": True, "result": {}})
    assert traced is trace_hooks.OFF and trace_hooks.decisions({}, {}) is trace_hooks.OFF
    asyncio.run(trace_hooks.permission("geolocation", query))
    trace_hooks.thread("t")
    trace_hooks.flush()
    assert asked == []


def test_a_headless_call_and_its_children_name_their_parents_and_times():
    rec = recorder()
    rec.thread("thread-1", None, "checkpoint-1")
    with rec.span("device.headless_tool", INTERRUPT, {"tool_call_id": "call_1"}) as tool:
        with rec.span("device.purpose_prompt"):
            pass
        with rec.span("device.device_api", None, {"device_api": "geolocation"}) as api:
            api.fail(ErrorCode.permission_denied.value)
        assert rec.ready_count() == 0  # the children wait for the call: one tree, one batch
        tool.answered(error_result("get_current_location", "call_1", ErrorCode.permission_denied, "denied"))
    spans = {s["name"]: s for s in sent(rec)}
    tool_span, prompt = spans["device.headless_tool"], spans["device.purpose_prompt"]
    api_span = spans["device.device_api"]
    assert tool_span["trace_id"] == prompt["trace_id"] == SERVER_TRACE
    assert tool_span["parent_span_id"] == SERVER_SPAN
    assert prompt["parent_span_id"] == api_span["parent_span_id"] == tool_span["span_id"]
    assert tool_span["start_unix_nano"] < prompt["start_unix_nano"] <= prompt["end_unix_nano"]
    assert prompt["end_unix_nano"] < tool_span["end_unix_nano"]
    assert (api_span["status"], api_span["error_code"]) == ("error", "permission_denied")
    assert (tool_span["status"], tool_span["error_code"]) == ("error", "permission_denied")
    for span in spans.values():
        assert span["attributes"]["sitewalk.thread_id"] == "thread-1"
        assert span["attributes"]["sitewalk.checkpoint_id"] == "checkpoint-1"
        assert span_issues(span) == [], span
    assert tool_span["attributes"]["sitewalk.tool_call_id"] == "call_1"


def test_a_headless_span_and_its_children_carry_the_checkpoint_its_interrupt_names():
    """Read from a stream, the state names no checkpoint: the interrupt value's (its step's) is the span's."""
    rec = recorder()
    rec.thread("thread-1", None, "checkpoint-older")
    with rec.span("device.headless_tool", {**INTERRUPT, "checkpoint_id": "cp-step"}, {"tool_call_id": "call_1"}):
        with rec.span("device.purpose_prompt"):
            pass
    with rec.span("device.headless_tool", {**INTERRUPT, "checkpoint_id": f"bad {SENTINEL}"}):
        pass  # not an id: dropped, the recorder's current checkpoint instead
    first, child, second = sorted(sent(rec), key=lambda s: s["start_unix_nano"])
    assert first["attributes"]["sitewalk.checkpoint_id"] == child["attributes"]["sitewalk.checkpoint_id"] == "cp-step"
    assert second["attributes"]["sitewalk.checkpoint_id"] == "checkpoint-older"


def test_with_tracing_on_a_run_also_streams_checkpoints_and_a_step_names_the_next_spans_checkpoint():
    modes = ("values", "updates", "messages-tuple")
    assert trace_hooks.stream_modes(modes) == modes  # off: the stream is as it was
    rec = recorder()
    trace_hooks.install(DeviceTracing(rec, SpanSender(rec, Server().post), asyncio.ensure_future))
    try:
        assert trace_hooks.stream_modes(modes) == (*modes, "checkpoints")
        trace_hooks.thread("thread-1", {"values": {}})  # a state from the stream: no checkpoint
        trace_hooks.checkpoint("thread-1", {"config": {"configurable": {"checkpoint_id": "cp-model"}}, "values": {}})
        with trace_hooks.span("device.screen"):
            pass
        trace_hooks.checkpoint("thread-1", {"config": None})  # not one: the last stays
        trace_hooks.checkpoint("thread-1", ["not", "a", "checkpoint"])
        with trace_hooks.span("device.screen"):
            pass
    finally:
        trace_hooks.install(None)
    assert [s["attributes"]["sitewalk.checkpoint_id"] for s in sent(rec)] == ["cp-model", "cp-model"]


def test_a_result_is_measured_not_copied():
    rec = recorder()
    rec.thread("thread-1")
    result = {"site": "Pier 4", "has_notes": True}
    with rec.span("device.headless_tool", INTERRUPT) as tool:
        tool.answered(ok_result("read_local_draft", "call_1", result))
    [span] = sent(rec)
    assert span["attributes"]["sitewalk.result_bytes"] == len(json.dumps(result, separators=(",", ":")))
    assert "Pier 4" not in json.dumps(span)


def test_a_sentinel_in_a_local_only_field_reaches_no_span_whatever_is_passed():
    rec = recorder()
    rec.thread("thread-1")
    draft = {"site": "Pier 4", "notes": SENTINEL}
    with rec.span("device.headless_tool", {"traceparent": INTERRUPT["traceparent"], "notes": SENTINEL},
                  {"notes": SENTINEL, "tool_name": SENTINEL, "tool_call_id": f"call {SENTINEL}",
                   "args": draft}) as tool:
        tool.set(note=SENTINEL, result=draft, error_code=SENTINEL, issue_codes=SENTINEL)
        tool.answered({"ok": True, "result": draft})
    with rec.span("device.screen") as screen:
        screen.screen({"root": "card", "elements": {"card": {"type": "Text", "props": {"text": SENTINEL}}}}, [])
    rec.record("device.boot", 1, 2, phase=SENTINEL)
    text = json.dumps(sent(rec))
    assert SENTINEL not in text and "notes" not in text


def test_spans_wait_for_their_thread_then_land_under_the_inspection_root():
    rec = recorder()
    with rec.span("device.start_press"):
        pass
    assert rec.ready_count() == 0  # no thread yet: no trace to put it in
    rec.thread("thread-9", "checkpoint-f")
    [span] = sent(rec)
    root = inspection_root("thread-9", "checkpoint-f")
    assert (span["trace_id"], span["parent_span_id"]) == (root.trace_id, root.span_id)
    assert list(rec.take_ready()) == []


def test_an_exception_ends_the_span_as_an_error_and_goes_on():
    rec = recorder()
    rec.thread("thread-1")

    class Refused(Exception):
        code = "not_found"

    with pytest.raises(Refused), rec.span("device.screen"):
        raise Refused()
    with pytest.raises(KeyError), rec.span("device.screen"):
        raise KeyError(SENTINEL)
    first, second = sent(rec)
    assert (first["error_code"], second["error_code"]) == ("not_found", "exception")


def test_a_screen_says_its_elements_issues_and_version():
    from sitewalk_shared.ui_spec.validate import validate_spec

    rec = recorder()
    rec.thread("thread-1")
    bad = {"root": "card", "elements": {"card": {"type": "NoSuchThing", "props": {}}}}
    with rec.span("device.screen", None, {"spec_version": 3, "tool_call_id": "call_ui"}) as screen:
        screen.screen(bad, validate_spec(bad))
    [span] = sent(rec)
    attributes = span["attributes"]
    assert attributes["sitewalk.spec_version"] == 3 and attributes["sitewalk.element_count"] == 1
    assert attributes["sitewalk.issue_count"] >= 1 and "unknown_type" in attributes["sitewalk.issue_codes"]
    assert (span["status"], span["error_code"]) == ("error", "invalid_spec")


def test_review_decisions_each_under_their_reviews_traceparent():
    rec = recorder()
    rec.thread("thread-1")
    state = {"interrupts": [], "tasks": [{"interrupts": [
        {"id": "i-1", "value": {"type": "tool_approval", "tool_call_id": "call_a", "name": "create_work_order",
                                "args": {"summary": SENTINEL},
                                "traceparent": format_traceparent(SERVER_TRACE, "1" * 16)}},
        {"id": "i-2", "value": {"type": "tool_approval", "tool_call_id": "call_b", "name": "notify_site_manager",
                                "traceparent": format_traceparent(SERVER_TRACE, "2" * 16),
                                "checkpoint_id": "cp-review"}}]}]}
    with rec.decisions(state, {"i-1": {"type": "approve"}, "i-2": {"type": "reject", "message": SENTINEL}}):
        pass
    spans = {s["attributes"]["sitewalk.tool_call_id"]: s for s in sent(rec)}
    assert spans["call_a"]["parent_span_id"] == "1" * 16 and spans["call_b"]["parent_span_id"] == "2" * 16
    assert spans["call_a"]["attributes"]["sitewalk.decision"] == "approve"
    assert spans["call_b"]["attributes"]["sitewalk.decision"] == "reject"
    assert spans["call_b"]["attributes"]["sitewalk.checkpoint_id"] == "cp-review"  # its review's step
    assert "sitewalk.checkpoint_id" not in spans["call_a"]["attributes"]  # none named, none read: none made up
    assert SENTINEL not in json.dumps(spans)


def test_the_boot_phases_and_an_early_start_press_from_the_pages_marks():
    rec = recorder()
    marks = {"start": 1000.0, "pyodideReady": 4000.0, "packagesLoaded": 5000.0, "configRead": 5001.0,
             "appStarting": 5002.0, "appStarted": 5500.0, "pressedAt": 3000.0, "takenAt": 5400.0}
    assert record_boot(rec, marks) == 6
    rec.thread("thread-1")
    spans = {s["name"]: s for s in sent(rec)}
    boot = spans["device.boot"]
    assert boot["start_unix_nano"] == 1000 * 1_000_000 and boot["end_unix_nano"] == 5500 * 1_000_000
    assert spans["device.boot.python"]["parent_span_id"] == boot["span_id"]
    assert spans["device.boot.python"]["attributes"]["sitewalk.boot_phase"] == "python"
    press = spans["device.start_press"]
    assert press["end_unix_nano"] - press["start_unix_nano"] == 2400 * 10**6
    assert record_boot(recorder(), {"start": 1.0}) == 0  # a boot not finished is not recorded


class Server:
    """The server's side in process: the real batch check and exporter, into OTel's in-memory exporter."""

    def __init__(self) -> None:
        self.memory = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.memory))
        self.exporter = DeviceSpanExporter(tracer_provider=provider)
        self.reachable = True
        self.lose_answer = False
        self.posts = 0

    async def post(self, batch: dict[str, Any]) -> object:
        self.posts += 1
        if not self.reachable:
            raise ServerUnreachable("offline")
        result = self.exporter.export(read_batch(json.loads(json.dumps(batch))))
        if self.lose_answer:  # taken, but the answer never came back
            self.lose_answer = False
            raise ServerUnreachable("connection dropped")
        return {"exported": result.exported, "duplicates": result.duplicates}


def spans_made(rec: Recorder, count: int) -> None:
    for _ in range(count):
        with rec.span("device.screen"):
            pass


def test_offline_spans_wait_then_arrive_once():
    rec, server = recorder(), Server()
    rec.thread("thread-1")
    sender = SpanSender(rec, server.post)
    spans_made(rec, 3)
    server.reachable = False
    assert asyncio.run(sender.send_ready()) is False
    assert rec.ready_count() == 3 and server.memory.get_finished_spans() == ()
    spans_made(rec, 1)
    server.reachable = True
    assert asyncio.run(sender.send_ready()) is True
    assert len(server.memory.get_finished_spans()) == 4 and sender.sent == 4 and rec.ready_count() == 0
    assert asyncio.run(sender.send_ready()) is True and server.posts == 2  # nothing left: nothing posted


def test_a_batch_whose_answer_was_lost_is_sent_again_and_exported_once():
    rec, server = recorder(), Server()
    rec.thread("thread-1")
    sender = SpanSender(rec, server.post)
    spans_made(rec, 2)
    server.lose_answer = True
    assert asyncio.run(sender.send_ready()) is False
    assert asyncio.run(sender.send_ready()) is True
    assert server.posts == 2 and len(server.memory.get_finished_spans()) == 2


def test_a_refused_batch_is_dropped_not_retried():
    rec = recorder()
    rec.thread("thread-1")
    posts: list[dict[str, Any]] = []

    async def refuse(batch: dict[str, Any]) -> object:
        posts.append(batch)
        raise error_for_status(422, {"error": "bad_span"}, method="POST", url="/sitewalk/device-spans")

    sender = SpanSender(rec, refuse)
    spans_made(rec, 2)
    assert asyncio.run(sender.send_ready()) is True
    assert (sender.refused, rec.ready_count(), len(posts)) == (2, 0, 1)


def test_a_sign_in_asked_keeps_the_spans():
    rec = recorder()
    rec.thread("thread-1")

    async def ask_sign_in(batch: dict[str, Any]) -> object:
        raise error_for_status(401, {}, method="POST", url="/sitewalk/device-spans")

    spans_made(rec, 1)
    assert asyncio.run(SpanSender(rec, ask_sign_in).send_ready()) is False and rec.ready_count() == 1


def test_more_spans_than_a_batch_go_in_several():
    rec, server = recorder(), Server()
    rec.thread("thread-1")
    spans_made(rec, 450)
    assert asyncio.run(SpanSender(rec, server.post).send_ready()) is True
    assert server.posts == 3 and len(server.memory.get_finished_spans()) == 450


def test_on_the_seam_sends_after_a_flush_one_send_at_a_time():
    server = Server()
    rec = recorder()

    async def go() -> None:
        tracing = DeviceTracing(rec, SpanSender(rec, server.post), asyncio.ensure_future,
                                marks=lambda: {"start": 1.0, "appStarted": 2.0})
        trace_hooks.install(tracing)
        try:
            trace_hooks.thread("thread-1", {"checkpoint": {"checkpoint_id": "cp-1"}})
            with trace_hooks.span("device.screen"):
                pass
            trace_hooks.flush()
            trace_hooks.flush()  # while the first send runs: sent again after it, not at once
            for _ in range(10):
                await asyncio.sleep(0)
        finally:
            trace_hooks.install(None)

    asyncio.run(go())
    names = sorted(s.name for s in server.memory.get_finished_spans())
    assert names == ["device.boot", "device.screen"] and server.posts == 1


def test_ids_and_checkpoints():
    assert len({new_span_id() for _ in range(100)}) == 100
    assert all(len(i) == 16 and int(i, 16) for i in (new_span_id() for _ in range(10)))
    assert checkpoint_of({"checkpoint": {"checkpoint_id": "c"}}) == "c" and checkpoint_of(None) is None


def test_a_run_from_a_checkpoint_puts_the_next_spans_in_the_forks_trace_and_a_resume_does_not():
    rec, server = recorder(), Server()
    tracing = DeviceTracing(rec, SpanSender(rec, server.post), asyncio.ensure_future)
    trace_hooks.install(tracing)
    try:
        trace_hooks.thread("thread-1")
        trace_hooks.run_from("thread-1", {"command": {"resume": {}}, "checkpoint_id": "ignored"})
        trace_hooks.run_from("thread-1", {"input": None})
        with trace_hooks.span("device.screen"):
            pass
        trace_hooks.run_from("thread-1", {"input": None, "checkpoint": {"checkpoint_id": "cp-7", "checkpoint_ns": ""}})
        trace_hooks.thread("thread-1", {})  # the same thread again: still on the fork's branch
        with trace_hooks.span("device.screen"):
            pass
        trace_hooks.run_from("thread-1", {"input": None, "checkpoint_id": "cp-9"})
        with trace_hooks.span("device.screen"):
            pass
    finally:
        trace_hooks.install(None)
    ready = rec.take_ready()
    assert [key for key in ready] == [("thread-1", None), ("thread-1", "cp-7"), ("thread-1", "cp-9")]
    [forked] = ready[("thread-1", "cp-7")]
    assert forked["trace_id"] == inspection_root("thread-1", "cp-7").trace_id
    for key, spans in ready.items():  # the server takes each batch as its fork's
        server.exporter.export(read_batch({"thread_id": key[0], "forked_from": key[1], "spans": spans}))
    assert len(server.memory.get_finished_spans()) == 3


def test_spans_that_waited_offline_survive_a_reload_and_are_then_sent_once():
    from memory_storage import DictStorage

    from sitewalk.tracing.sender import KEPT_KEY

    kept, server = DictStorage(), Server()
    rec = recorder()
    rec.thread("thread-1")
    spans_made(rec, 2)
    server.reachable = False
    assert asyncio.run(SpanSender(rec, server.post, kept).send_ready()) is False
    assert len(json.loads(kept.get(KEPT_KEY) or "[]")[0][2]) == 2  # written to the device as they wait
    # the page is reloaded: a new recorder, its sender restores what waited
    server.reachable = True
    reloaded = Recorder(clock=Clock(), new_id=lambda: "f" * 16)
    sender = SpanSender(reloaded, server.post, kept)
    assert sender.restore() == 2
    assert asyncio.run(sender.send_ready()) is True
    assert len(server.memory.get_finished_spans()) == 2 and kept.get(KEPT_KEY) is None
    assert SpanSender(recorder(), server.post, kept).restore() == 0  # nothing left to send twice


def test_a_malformed_kept_record_is_dropped_not_sent():
    from memory_storage import DictStorage

    from sitewalk.tracing.sender import KEPT_KEY

    good = {"name": "device.screen", "trace_id": inspection_root("t").trace_id, "span_id": "1" * 16,
            "parent_span_id": inspection_root("t").span_id, "start_unix_nano": 1, "end_unix_nano": 2,
            "attributes": {}, "status": "ok"}
    bad = {**good, "span_id": "2" * 16, "attributes": {"sitewalk.notes": SENTINEL}}
    for text, restored in (("{", 0), ('{"a": 1}', 0), (json.dumps([["t", None, [good, bad]], ["x"]]), 1)):
        rec = recorder()
        assert SpanSender(rec, Server().post, DictStorage({KEPT_KEY: text})).restore() == restored
        assert SENTINEL not in json.dumps(list(rec.take_ready().values()))


def test_a_streamed_screen_names_the_checkpoint_of_its_step_and_a_screen_read_from_a_state_that_states():
    """With tracing on, the run asks for `checkpoints` too; the screen on record a `values` event brought is
    stamped with the checkpoint its step started from, and one drawn from a state read with that state's."""
    from fake_agent_server import RUNS, FakeTransport, RecordingView, sse
    from sessions_for_tests import stream_on

    from sitewalk_agent.demo.scripted_model import inspection_screen

    def screen(call_id: str) -> dict[str, Any]:
        return {**inspection_screen({"site": "Pier 4", "inspector": "Ana", "findings": [], "risk": "low"}),
                "identity": {"message_id": f"msg-{call_id}", "tool_call_id": call_id, "revision": 1}}

    fake = FakeTransport().on("POST", f"{RUNS}/stream", sse(
        ("metadata", {"run_id": "run-1"}),
        ("checkpoints", {"config": {"configurable": {"checkpoint_id": "cp-step"}}, "values": {}}),
        ("values", {"messages": [], "ui_spec": screen("call-1")})))
    rec = recorder()
    trace_hooks.install(DeviceTracing(rec, SpanSender(rec, Server().post), asyncio.ensure_future))
    try:
        stream = stream_on(fake, RecordingView())
        asyncio.run(stream.run(input={"messages": []}))
        stream.show_state({"checkpoint": {"checkpoint_id": "cp-read"}, "values": {"ui_spec": screen("call-2")}})
    finally:
        trace_hooks.install(None)
    assert fake.requests[0].json["stream_mode"] == ["values", "updates", "messages-tuple", "checkpoints"]
    screens = {s["attributes"]["sitewalk.tool_call_id"]: s for s in sent(rec) if s["name"] == "device.screen"}
    assert screens["call-1"]["attributes"]["sitewalk.checkpoint_id"] == "cp-step"
    assert screens["call-2"]["attributes"]["sitewalk.checkpoint_id"] == "cp-read"
