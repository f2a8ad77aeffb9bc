"""The device's span recorder (issue 27): spans of what the browser did, kept until the server takes them.

Hand-written, not OpenTelemetry's Python SDK: the SDK (with its API, semantic conventions and protobuf
exporter) is several hundred kilobytes of modules the page would fetch and import on a phone, far over the
50 KB the tracing code may add; the device needs only to time a few spans, name their parents and hand them
over as `DeviceSpan` dicts. The server turns them into OpenTelemetry spans (`sitewalk_agent.tracing`).

- A span's parent is the span open around it (a context variable, so parallel tool calls each keep their
  own), else the server span named by the `traceparent` of the interrupt it answers, else the root of the
  inspection's trace (`inspection_root` of its thread), known once the thread is (a Start pressed before
  there was a thread waits for it).
- Attributes are kept only under the allowlist's keys and only when their value fits the key
  (`sitewalk_shared.contracts.device_trace`); everything else is dropped here, before a span exists to send.
  Every span gets the thread id, and the checkpoint id when one is known: the checkpoint the step it belongs
  to started from. A headless call's span takes it from its interrupt value (`"checkpoint_id"`, the server's
  word), its children from it; other spans take the recorder's current one (`thread`: from a thread state
  read, or a `checkpoints` stream event as each step begins). Spans of the boot and an early Start press
  come before any checkpoint and have none.
- A finished span waits until the outermost device span around it has finished too, then it is ready to
  send (`take_ready`), so a batch carries a whole tree and the server can parent children on what it
  exported. Pure: the clock, the ids and the sending are given (`sitewalk.tracing.start` wires the browser's).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

from sitewalk_shared.contracts.device_trace import allowed_value
from sitewalk_shared.contracts.trace_wire import (
    AttributeValue,
    DeviceSpan,
    SpanParent,
    inspection_root,
    parse_traceparent,
)

__all__ = ["BatchKey", "Recorder", "checkpoint_of"]

BatchKey = tuple[str, str | None]  # (thread_id, forked_from): the inspection whose trace a span is in
_OPEN: ContextVar[_Span | None] = ContextVar("sitewalk_device_span", default=None)


@dataclass(eq=False)
class _Span:
    name: str
    span_id: str
    start: int
    parent: _Span | None = None  # the device span it is in
    remote: SpanParent | None = None  # the server span a traceparent named (outermost spans only)
    attributes: dict[str, object] = field(default_factory=dict)
    end: int | None = None
    error_code: str | None = None

    def root(self) -> _Span:
        return self if self.parent is None else self.parent.root()


class Recorder:
    def __init__(self, clock: Callable[[], int], new_id: Callable[[], str],
                 on_ready: Callable[[], None] | None = None) -> None:
        self.clock = clock  # Unix epoch nanoseconds
        self.new_id = new_id  # 16 lowercase hex digits, not all zero
        self.on_ready = on_ready  # told when spans are ready to send
        self.key: BatchKey | None = None
        self.checkpoint_id: str | None = None
        self._waiting: list[_Span] = []  # finished, their tree or their thread not yet
        self._ready: dict[BatchKey, list[DeviceSpan]] = {}

    # ---------------------------------------------------------------- making spans
    @contextmanager
    def span(self, name: str, carrier: object = None, attributes: Mapping[str, object] | None = None
             ) -> Iterator[_Handle]:
        outer = _OPEN.get()
        made = _Span(name, self.new_id(), self.clock(), parent=outer,
                     remote=None if outer is not None else _traceparent(carrier))
        checkpoint_id = (_checkpoint_in(carrier) or (outer.attributes.get("sitewalk.checkpoint_id") if outer else None)
                         or self.checkpoint_id)
        handle = _Handle(made, self)
        handle.set(**{"checkpoint_id": checkpoint_id, **(attributes or {})})
        token = _OPEN.set(made)
        try:
            yield handle
        except BaseException as exc:
            made.error_code = made.error_code or _code_of(exc)
            raise
        finally:
            _OPEN.reset(token)
            self._finish(made)

    def record(self, name: str, start: int, end: int, parent: _Span | None = None, **attributes: object) -> _Span:
        """A span whose times were taken before Python ran (the boot, an early Start press)."""
        made = _Span(name, self.new_id(), start, parent=parent, end=max(start, end))
        _Handle(made, self).set(**attributes)
        self._waiting.append(made)
        return made

    @contextmanager
    def decisions(self, state: Mapping[str, Any], sent: Mapping[str, Mapping[str, Any]]) -> Iterator[None]:
        """One span per review decision in `sent`, each under the traceparent of its interrupt in `state`."""
        values = _interrupt_values(state)
        read = checkpoint_of(state) or self.checkpoint_id
        spans = []
        for interrupt_id, decision in sent.items():
            value = values.get(interrupt_id, {})
            checkpoint_id = _checkpoint_in(value) or read
            made = _Span("device.review_decision", self.new_id(), self.clock(), remote=_traceparent(value))
            _Handle(made, self).set(interrupt_id=interrupt_id, tool_call_id=value.get("tool_call_id"),
                                    tool_name=value.get("name"), decision=decision.get("type"),
                                    checkpoint_id=checkpoint_id)
            spans.append(made)
        try:
            yield None
        finally:
            for made in spans:
                self._finish(made)

    def thread(self, thread_id: str, forked_from: str | None = None, checkpoint_id: str | None = None) -> None:
        """The inspection from now on; on the same thread without a `forked_from`, the branch it is on stays
        (the server's later runs continue a fork's trace too)."""
        if forked_from is None and self.key is not None and self.key[0] == thread_id:
            forked_from = self.key[1]
        self.key = (thread_id, forked_from)
        self.checkpoint_id = checkpoint_id or self.checkpoint_id  # stamped on the spans made from now on
        self._place()

    # ---------------------------------------------------------------- handing them over
    def take_ready(self) -> dict[BatchKey, list[DeviceSpan]]:
        """The spans ready to send, by inspection; they are the caller's now (`put_back` if not sent)."""
        ready, self._ready = self._ready, {}
        return ready

    def ready(self) -> dict[BatchKey, list[DeviceSpan]]:
        """The spans ready to send, by inspection (a copy; they stay the recorder's)."""
        return {key: list(spans) for key, spans in self._ready.items()}

    def put_back(self, key: BatchKey, spans: list[DeviceSpan]) -> None:
        self._ready.setdefault(key, [])[:0] = spans

    def ready_count(self) -> int:
        return sum(len(spans) for spans in self._ready.values())

    def _finish(self, made: _Span) -> None:
        made.end = self.clock()
        self._waiting.append(made)
        self._place()

    def _place(self) -> None:
        """Move each waiting span whose tree has finished and whose trace is known to the ready spans."""
        if self.key is None:
            return
        still: list[_Span] = []
        placed = 0
        for made in self._waiting:
            if made.root().end is None:
                still.append(made)
                continue
            self._ready.setdefault(self.key, []).append(self._device_span(made, self.key))
            placed += 1
        self._waiting = still
        if placed and self.on_ready is not None:
            self.on_ready()

    def _device_span(self, made: _Span, key: BatchKey) -> DeviceSpan:
        root = inspection_root(*key)
        outer = made.root()
        trace_id = outer.remote.trace_id if outer.remote is not None else root.trace_id
        parent_id = (made.parent.span_id if made.parent is not None
                     else made.remote.span_id if made.remote is not None else root.span_id)
        attributes = dict(made.attributes)  # each kept by `_Handle.set`'s allowlist check
        if allowed_value("sitewalk.thread_id", key[0]):
            attributes["sitewalk.thread_id"] = key[0]
        span: DeviceSpan = {"name": made.name, "trace_id": trace_id, "span_id": made.span_id,
                            "parent_span_id": parent_id, "start_unix_nano": made.start,
                            "end_unix_nano": max(made.start, made.end or made.start),
                            "attributes": cast(dict[str, AttributeValue], attributes),
                            "status": "error" if made.error_code else "ok"}
        if made.error_code:
            span["error_code"] = made.error_code
        return span


class _Handle:
    """What the code inside a span may say about it (the seam's `SpanHandle`)."""

    def __init__(self, made: _Span, recorder: Recorder) -> None:
        self._made = made
        self._recorder = recorder

    def set(self, **attributes: object) -> None:
        for short, value in attributes.items():
            key = f"sitewalk.{short}"
            if allowed_value(key, value):  # anything off the allowlist is dropped here
                self._made.attributes[key] = value

    def fail(self, code: str) -> None:
        self._made.error_code = code if allowed_value("sitewalk.error_code", code) else "error"
        self.set(error_code=self._made.error_code)

    def answered(self, envelope: Mapping[str, Any]) -> None:
        if envelope.get("ok") is True:
            self.set(result_bytes=len(json.dumps(envelope.get("result"), separators=(",", ":")).encode()))
            return
        error = envelope.get("error")
        self.fail(str(error.get("code")) if isinstance(error, dict) else "error")

    def screen(self, spec: object, issues: list[Any]) -> None:
        elements = spec.get("elements") if isinstance(spec, dict) else None
        codes = sorted({str(getattr(issue, "code", "")) for issue in issues})
        self.set(element_count=len(elements) if isinstance(elements, dict) else 0, issue_count=len(issues),
                 issue_codes=",".join(codes[:20]))
        if issues:
            self.fail("invalid_spec")


def checkpoint_of(state: Mapping[str, Any] | None) -> str | None:
    """The checkpoint id a thread state (as the server answers it) is at, or None (a state built from a
    stream has none: the span then has no checkpoint id; the server's span it nests under has its step)."""
    checkpoint = state.get("checkpoint") if isinstance(state, Mapping) else None
    found = checkpoint.get("checkpoint_id") if isinstance(checkpoint, Mapping) else None
    return found if isinstance(found, str) else None


def _checkpoint_in(carrier: object) -> str | None:
    """The checkpoint an interrupt value names (the one its step started from), when the server put one in."""
    found = carrier.get("checkpoint_id") if isinstance(carrier, Mapping) else None
    return found if isinstance(found, str) and allowed_value("sitewalk.checkpoint_id", found) else None


def _traceparent(carrier: object) -> SpanParent | None:
    return parse_traceparent(carrier.get("traceparent")) if isinstance(carrier, Mapping) else None


def _code_of(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    code = getattr(code, "value", code)
    return code if isinstance(code, str) and allowed_value("sitewalk.error_code", code) else "exception"


def _interrupt_values(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each pending interrupt's value by its id, from a thread state (top level and the tasks')."""
    found: dict[str, dict[str, Any]] = {}
    interrupts = list(state.get("interrupts") or [])
    for task in state.get("tasks") or []:
        interrupts += list(task.get("interrupts") or []) if isinstance(task, dict) else []
    for interrupt in interrupts:
        if isinstance(interrupt, dict) and isinstance(interrupt.get("value"), dict):
            found[str(interrupt.get("id"))] = interrupt["value"]
    return found
