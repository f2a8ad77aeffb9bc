"""One trace per inspection: every run of a thread is a child of the inspection's root span.

OpenInference's root span of a run (the graph's chain) takes the *current* OpenTelemetry context as its
parent. `traced_run` attaches, while the run streams, a context whose span is the inspection's root
(`trace_wire.inspection_root(thread_id, forked_from)`: ids both the server and the device compute from the
thread), and sets the attributes `RunAttributes` puts on every span the run makes. When the run ends, the
root span itself is exported once per process and inspection (`sitewalk.inspection`, starting with the first
run it saw), so the trace has a real root.

A run started from a checkpoint without a resume (a replay or a fork: the run's config names a
`checkpoint_id`) begins a trace of its own, `forked_from` that checkpoint, whose root links to the
inspection's root (an OpenTelemetry link, and the attributes `sitewalk.forked_from_trace_id` and
`sitewalk.forked_from_span_id` for backends that keep no links). The thread's later runs (resumes, new
input) continue the branch the thread is on, so the thread's trace head (the checkpoint of its last fork,
or none) is kept in the server's store.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, TraceFlags

from sitewalk_agent.tracing.pinned_ids import PinnedIds, pinned
from sitewalk_shared.contracts.trace_wire import SpanParent, inspection_root

__all__ = ["HEAD_NAMESPACE", "RunAttributes", "RunTrace", "run_trace", "traced_run"]

ROOT_SPAN = "sitewalk.inspection"
HEAD_NAMESPACE = ("sitewalk", "trace_head")  # store: thread_id -> {"forked_from": checkpoint id | None}
_ATTRS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("sitewalk_run_attrs", default=None)
_EMITTED: OrderedDict[tuple[str, str | None], None] = OrderedDict()
_EMITTED_MAX = 4096


@dataclass(frozen=True)
class RunTrace:
    """Where one run's spans belong: its thread, the checkpoint its branch left (if any), its run id."""

    thread_id: str
    forked_from: str | None = None
    run_id: str | None = None

    def root(self) -> SpanParent:
        return inspection_root(self.thread_id, self.forked_from)

    def attributes(self) -> dict[str, str]:
        attrs = {"sitewalk.thread_id": self.thread_id}
        if self.forked_from:
            attrs["sitewalk.forked_from"] = self.forked_from
        if self.run_id:
            attrs["sitewalk.run_id"] = self.run_id
        return attrs


def run_trace(config: Mapping[str, Any], head: str | None = None) -> RunTrace | None:
    """The run's trace from its config (None without a thread); `head`: the thread's last fork point."""
    configurable = config.get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if not thread_id:
        return None
    started_from = configurable.get("checkpoint_id")
    run_id = configurable.get("run_id") or (config.get("metadata") or {}).get("run_id")
    return RunTrace(str(thread_id), str(started_from) if started_from else head, str(run_id) if run_id else None)


class RunAttributes(SpanProcessor):
    """Puts the current run's attributes (`sitewalk.thread_id`, ...) on every span started in it."""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        for key, value in (_ATTRS.get() or {}).items():
            span.set_attribute(key, value)

    def on_end(self, span: ReadableSpan) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _remote_parent(parent: SpanParent) -> SpanContext:
    return SpanContext(int(parent.trace_id, 16), int(parent.span_id, 16), is_remote=True,
                       trace_flags=TraceFlags(TraceFlags.SAMPLED))


@contextmanager
def traced_run(run: RunTrace, provider: TracerProvider) -> Iterator[None]:
    """While the block runs, new spans are children of the inspection's root and carry the run's attributes."""
    started = time.time_ns()
    root_context = trace.set_span_in_context(NonRecordingSpan(_remote_parent(run.root())))
    token = otel_context.attach(root_context)
    attrs_token = _ATTRS.set(run.attributes())
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # the run may end in another context than it began (never here)
            _ATTRS.reset(attrs_token)
        otel_context.detach(token)
        emit_root_once(run, provider, started)


def emit_root_once(run: RunTrace, provider: TracerProvider, started: int) -> None:
    """Export the inspection's root span, once per process and (thread, forked_from)."""
    key = (run.thread_id, run.forked_from)
    if key in _EMITTED:
        return
    _EMITTED[key] = None
    while len(_EMITTED) > _EMITTED_MAX:
        _EMITTED.popitem(last=False)
    root, left = run.root(), inspection_root(run.thread_id)
    tracer = provider.get_tracer("sitewalk.tracing")
    tracer.id_generator = PinnedIds(tracer.id_generator)  # type: ignore[attr-defined]  # the SDK tracer's own
    links = [Link(_remote_parent(left), {"sitewalk.link": "forked_from"})] if run.forked_from else []
    attrs = {key: value for key, value in run.attributes().items() if key != "sitewalk.run_id"}
    if run.forked_from:  # the link as attributes too: not every backend keeps links (Phoenix does not)
        attrs.update({"sitewalk.forked_from_trace_id": left.trace_id, "sitewalk.forked_from_span_id": left.span_id})
    with pinned(root.trace_id, root.span_id):
        span = tracer.start_span(ROOT_SPAN, context=Context(), start_time=started, links=links, attributes=attrs)
    span.end()
