"""The device's spans, checked and exported under the server's trace of the inspection (issue 27).

The browser posts its finished spans (`DeviceSpan` dicts, `sitewalk_shared.contracts.trace_wire`) in a
batch naming the inspection's thread (`device_route.py` has the route and its authorization). Here:

- `read_batch` checks a batch: its shape, each span against the one allowlist of names and attribute keys
  (`sitewalk_shared.contracts.device_trace`), the limits, and that every span belongs to the trace of that
  thread's inspection (`inspection_root`), so a batch cannot aim at another inspection's trace. Anything
  wrong refuses the whole batch with `DeviceSpansRefused` and a code; nothing of it is exported.
- `DeviceSpanExporter.export` makes each span through the global OpenTelemetry tracer provider (the one
  the server's tracing set-up installs; without one the API's no-op provider drops them), with the
  device's own start and end times and its parent: the server span the interrupt's `traceparent` named,
  or another device span of the batch. The SDK gives each exported span an id of its own, so a device
  span's children are made after it and parented on that id (the device's id stays an attribute,
  `sitewalk.device_span_id`). A span id already exported is skipped: a batch the device sent again (its
  answer lost on the way) is never exported twice. That memory is per server process and bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags

from sitewalk_shared.contracts.device_trace import MAX_SPANS_PER_BATCH, span_issues
from sitewalk_shared.contracts.trace_wire import DeviceSpan, inspection_root
from sitewalk_shared.errors import SitewalkError

__all__ = ["DeviceBatch", "DeviceSpanExporter", "DeviceSpansRefused", "Exported", "read_batch"]

TRACER_NAME = "sitewalk.device"
MAX_BODY_BYTES = 256 * 1024
_THREAD_ID_MAX = 128


class DeviceSpansRefused(SitewalkError, ValueError):
    """A batch of device spans the server will not export; `code` says why, `issues` which span and field."""

    def __init__(self, code: str, message: str, issues: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.issues = list(issues)[:20]

    def body(self) -> dict[str, object]:
        return {"error": self.code, "message": self.message, "issues": self.issues}


@dataclass(frozen=True)
class DeviceBatch:
    """A checked batch: the thread whose inspection the spans belong to, and the spans."""

    thread_id: str
    forked_from: str | None
    spans: list[DeviceSpan]


@dataclass(frozen=True)
class Exported:
    exported: int
    duplicates: int


def read_batch(body: object) -> DeviceBatch:
    """The batch in a request body, checked; `DeviceSpansRefused` when anything in it is wrong."""
    if not isinstance(body, dict) or not set(body) <= {"thread_id", "forked_from", "spans"}:
        raise DeviceSpansRefused("malformed_batch", "a batch is {thread_id, forked_from?, spans}")
    thread_id, forked_from, spans = body.get("thread_id"), body.get("forked_from"), body.get("spans")
    if not isinstance(thread_id, str) or not 0 < len(thread_id) <= _THREAD_ID_MAX:
        raise DeviceSpansRefused("malformed_batch", "thread_id must be a thread id")
    if forked_from is not None and (not isinstance(forked_from, str) or len(forked_from) > _THREAD_ID_MAX):
        raise DeviceSpansRefused("malformed_batch", "forked_from must be a checkpoint id or null")
    if not isinstance(spans, list):
        raise DeviceSpansRefused("malformed_batch", "spans must be a list")
    if len(spans) > MAX_SPANS_PER_BATCH:
        raise DeviceSpansRefused("too_many_spans", f"at most {MAX_SPANS_PER_BATCH} spans in one batch")
    issues = [f"spans[{i}].{issue}" for i, span in enumerate(spans) for issue in span_issues(span)]
    if issues:
        raise DeviceSpansRefused("bad_span", "a span is not one the device may send", issues)
    trace_id = inspection_root(thread_id, forked_from).trace_id
    foreign = [f"spans[{i}].trace_id" for i, span in enumerate(spans) if span["trace_id"] != trace_id]
    if foreign:
        raise DeviceSpansRefused("foreign_trace", "a span is not in the trace of this thread's inspection", foreign)
    return DeviceBatch(thread_id, forked_from, cast(list[DeviceSpan], spans))


class DeviceSpanExporter:
    """Exports checked batches through the global tracer provider, each device span id once."""

    def __init__(self, tracer_provider: trace.TracerProvider | None = None, remember: int = 100_000) -> None:
        self._provider = tracer_provider  # None: the global one, looked up at each export (installed later)
        self._remember = remember
        self._seen: OrderedDict[str, None] = OrderedDict()

    def export(self, batch: DeviceBatch) -> Exported:
        tracer = trace.get_tracer(TRACER_NAME, tracer_provider=self._provider)
        fresh = [span for span in batch.spans if span["span_id"] not in self._seen]
        exported_ids: dict[str, int] = {}  # device span id -> the id the SDK gave its exported span
        for span in _parents_first(fresh):
            exported_ids[span["span_id"]] = _export_one(tracer, span, exported_ids)
            self._keep(span["span_id"])
        return Exported(exported=len(fresh), duplicates=len(batch.spans) - len(fresh))

    def _keep(self, span_id: str) -> None:
        self._seen[span_id] = None
        while len(self._seen) > self._remember:
            self._seen.popitem(last=False)


def _parents_first(spans: list[DeviceSpan]) -> list[DeviceSpan]:
    """The spans ordered so that a device span comes before its children (a parent outside the batch is
    the server's span, or one exported before)."""
    by_id = {span["span_id"]: span for span in spans}
    ordered: list[DeviceSpan] = []
    placed: set[str] = set()

    def place(span: DeviceSpan, depth: int = 0) -> None:
        if span["span_id"] in placed:
            return
        parent = by_id.get(span["parent_span_id"])
        if parent is not None and depth < len(spans):
            place(parent, depth + 1)
        placed.add(span["span_id"])
        ordered.append(span)

    for span in spans:
        place(span)
    return ordered


def _export_one(tracer: trace.Tracer, span: DeviceSpan, exported_ids: Mapping[str, int]) -> int:
    parent_id = exported_ids.get(span["parent_span_id"], int(span["parent_span_id"], 16))
    parent = SpanContext(trace_id=int(span["trace_id"], 16), span_id=parent_id, is_remote=True,
                         trace_flags=TraceFlags(TraceFlags.SAMPLED))
    context = trace.set_span_in_context(NonRecordingSpan(parent))
    attributes: dict[str, Any] = {**span["attributes"], "sitewalk.device_span_id": span["span_id"],
                                  "sitewalk.origin": "device"}
    made = tracer.start_span(span["name"], context=context, start_time=span["start_unix_nano"],
                             attributes=attributes)
    if span["status"] == "error":
        made.set_status(Status(StatusCode.ERROR, span.get("error_code") or "error"))
    made.end(end_time=span["end_unix_nano"])
    return made.get_span_context().span_id or parent_id
