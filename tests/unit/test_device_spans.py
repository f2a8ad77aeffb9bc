"""The device's spans on the server (sitewalk_agent/tracing/device_spans.py): a batch checked against the one
allowlist, refused whole with a typed code when anything is wrong, and exported through OpenTelemetry with the
device's times, under the parent the device named, each device span once (OTel's InMemorySpanExporter)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from sitewalk_agent.tracing.device_spans import DeviceSpanExporter, DeviceSpansRefused, read_batch
from sitewalk_shared.contracts.device_trace import MAX_SPANS_PER_BATCH, span_issues
from sitewalk_shared.contracts.trace_wire import inspection_root

THREAD = "thread-1"
ROOT = inspection_root(THREAD)
SERVER_SPAN = "00f067aa0ba902b7"  # the tool call's span the interrupt's traceparent named


def span(name: str, span_id: str, parent: str = SERVER_SPAN, **attributes: Any) -> dict[str, Any]:
    return {"name": name, "trace_id": ROOT.trace_id, "span_id": span_id, "parent_span_id": parent,
            "start_unix_nano": 1_700_000_000_000_000_000, "end_unix_nano": 1_700_000_000_250_000_000,
            "attributes": {"sitewalk.thread_id": THREAD, **attributes}, "status": "ok"}


def batch(*spans: dict[str, object]) -> dict[str, object]:
    return {"thread_id": THREAD, "forked_from": None, "spans": list(spans)}


def headless_batch() -> dict[str, object]:
    """A headless call's span and its child, the child first (the order the device finishes them)."""
    child = span("device.device_api", "2222222222222222", parent="1111111111111111",
                 **{"sitewalk.device_api": "geolocation"})
    child.update(status="error", error_code="permission_denied")
    tool_attributes: dict[str, Any] = {"sitewalk.tool_call_id": "call_1", "sitewalk.result_bytes": 120}
    return batch(child, span("device.headless_tool", "1111111111111111", **tool_attributes))


@pytest.fixture
def exported():
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return DeviceSpanExporter(tracer_provider=provider), memory


def test_a_device_span_is_exported_under_the_server_span_with_the_devices_times_and_ids(exported):
    exporter, memory = exported
    result = exporter.export(read_batch(headless_batch()))
    assert (result.exported, result.duplicates) == (2, 0)
    by_name = {s.name: s for s in memory.get_finished_spans()}
    tool, api = by_name["device.headless_tool"], by_name["device.device_api"]
    assert tool.context.trace_id == api.context.trace_id == int(ROOT.trace_id, 16)
    assert tool.parent.span_id == int(SERVER_SPAN, 16) and tool.parent.is_remote
    assert api.parent.span_id == tool.context.span_id  # the child under its device parent, as exported
    assert (tool.start_time, tool.end_time) == (1_700_000_000_000_000_000, 1_700_000_000_250_000_000)
    assert tool.attributes["sitewalk.tool_call_id"] == "call_1" and tool.attributes["sitewalk.result_bytes"] == 120
    assert tool.attributes["sitewalk.device_span_id"] == "1111111111111111"
    assert api.status.status_code is StatusCode.ERROR and api.status.description == "permission_denied"


def test_a_batch_sent_again_is_not_exported_twice(exported):
    exporter, memory = exported
    exporter.export(read_batch(headless_batch()))
    again = exporter.export(read_batch(headless_batch()))
    assert (again.exported, again.duplicates) == (0, 2)
    assert len(memory.get_finished_spans()) == 2


def test_a_fork_names_its_own_trace():
    fork = inspection_root(THREAD, "checkpoint-9")
    forked = span("device.screen", "3333333333333333")
    forked["trace_id"] = fork.trace_id
    taken = read_batch({"thread_id": THREAD, "forked_from": "checkpoint-9", "spans": [forked]})
    assert taken.forked_from == "checkpoint-9"
    with pytest.raises(DeviceSpansRefused) as refused:
        read_batch(batch(forked))  # without the fork it is not this inspection's trace
    assert refused.value.code == "foreign_trace"


def refusal(body: object) -> DeviceSpansRefused:
    with pytest.raises(DeviceSpansRefused) as refused:
        read_batch(body)
    return refused.value


def test_a_span_of_another_trace_is_refused():
    other = span("device.screen", "3333333333333333")
    other["trace_id"] = inspection_root("someone-elses-thread").trace_id
    found = refusal(batch(span("device.screen", "4444444444444444"), other))
    assert (found.code, found.issues) == ("foreign_trace", ["spans[1].trace_id"])


@pytest.mark.parametrize(("change", "issue"), [
    (lambda s: s.update(name="device.anything"), "spans[0].name"),
    (lambda s: s.update(span_id="ABCDEF0123456789"), "spans[0].span_id"),
    (lambda s: s.update(span_id="0" * 16), "spans[0].span_id"),
    (lambda s: s.update(parent_span_id="12"), "spans[0].parent_span_id"),
    (lambda s: s.update(trace_id="f" * 31), "spans[0].trace_id"),
    (lambda s: s.update(end_unix_nano=1), "spans[0].times"),
    (lambda s: s.update(start_unix_nano="soon"), "spans[0].times"),
    (lambda s: s.update(status="fine"), "spans[0].status"),
    (lambda s: s.update(error_code="permission_denied"), "spans[0].error_code"),  # an ok span has no error code
    (lambda s: s.update(events=[{"name": "x"}]), "spans[0].fields"),
    (lambda s: s["attributes"].update({"sitewalk.note": "SENTINEL"}), "spans[0].attribute:sitewalk.note"),
    (lambda s: s["attributes"].update({"sitewalk.error_code": "Not A Code"}), "spans[0].attribute:sitewalk.error_code"),
    (lambda s: s["attributes"].update({"sitewalk.result_bytes": -1}), "spans[0].attribute:sitewalk.result_bytes"),
    (lambda s: s["attributes"].update({"sitewalk.thread_id": "a thread with spaces"}),
     "spans[0].attribute:sitewalk.thread_id"),
    (lambda s: s["attributes"].update({f"sitewalk.k{i}": 1 for i in range(20)}), "spans[0].attributes"),
])
def test_a_malformed_span_is_refused_with_its_field(change, issue):
    bad = span("device.screen", "5555555555555555")
    change(bad)
    found = refusal(batch(bad))
    assert found.code == "bad_span" and issue in found.issues


@pytest.mark.parametrize("body", [
    [], {"thread_id": THREAD}, {"thread_id": "", "spans": []}, {"thread_id": THREAD, "spans": {}},
    {"thread_id": THREAD, "spans": [], "extra": 1}, {"thread_id": THREAD, "forked_from": 3, "spans": []},
])
def test_a_malformed_batch_is_refused(body):
    assert refusal(body).code == "malformed_batch"


def test_too_many_spans_are_refused():
    many = [span("device.screen", f"{i + 1:016x}") for i in range(MAX_SPANS_PER_BATCH + 1)]
    assert refusal(batch(*many)).code == "too_many_spans"
    assert len(read_batch(batch(*many[:MAX_SPANS_PER_BATCH])).spans) == MAX_SPANS_PER_BATCH


def test_a_refused_batch_exports_nothing(exported):
    exporter, memory = exported
    good = span("device.screen", "6666666666666666")
    bad = copy.deepcopy(good) | {"span_id": "7777777777777777", "name": "device.nope"}
    with pytest.raises(DeviceSpansRefused):
        exporter.export(read_batch(batch(good, bad)))
    assert memory.get_finished_spans() == ()


def test_every_allowed_key_has_a_value_it_accepts_and_one_it_refuses():
    from sitewalk_shared.contracts.device_trace import ATTRIBUTES

    for key, check in ATTRIBUTES.items():
        assert not check({"value": 1}), key  # no key takes an object (an argument or a result)
        assert not check(None), key
    assert span_issues(span("device.screen", "8888888888888888", **{"sitewalk.spec_version": 3})) == []
