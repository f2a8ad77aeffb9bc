"""The trace values that cross between the agent server and the browser (issue 27), from one definition.

- Server to browser: a W3C trace context (`traceparent`, https://www.w3.org/TR/trace-context/) rides in
  the interrupt value of a headless tool call or a review, naming the span the browser's work belongs under.
- Browser to server: the device's finished spans, as `DeviceSpan` dicts, to be exported by the server's
  OpenTelemetry pipeline under that parent.
- Both sides: `inspection_root` names one inspection's trace from its thread id (and, for a replay or a
  fork, the checkpoint it left), so every run of the inspection, and the device's spans made before any
  interrupt (the boot, the Start press), land in one trace without a round trip to agree on it.

TypedDicts and plain functions: this module costs nothing when the browser boots and nothing when tracing
is off. The `traceparent` reader and writer are hand-written because the only maintained one
(`opentelemetry.propagators`) needs the OpenTelemetry API, which the browser does not load; they follow
the W3C text exactly (version 00, lowercase hex, all-zero ids invalid).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

__all__ = [
    "AttributeValue",
    "DeviceSpan",
    "SpanParent",
    "format_traceparent",
    "inspection_root",
    "parse_traceparent",
]

AttributeValue = str | int | float | bool

_TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


class DeviceSpan(TypedDict):
    """One finished span made on the device. Ids are lowercase hex; times are Unix epoch nanoseconds."""

    name: str
    trace_id: str  # 32 hex
    span_id: str  # 16 hex, made on the device
    parent_span_id: str  # 16 hex: the server span named by the traceparent, or another device span
    start_unix_nano: int
    end_unix_nano: int
    attributes: dict[str, AttributeValue]
    status: Literal["ok", "error"]
    error_code: NotRequired[str]  # the typed error's code when status is "error"


@dataclass(frozen=True)
class SpanParent:
    """A parsed `traceparent`: the trace and the span that new spans nest under."""

    trace_id: str
    span_id: str
    sampled: bool


def parse_traceparent(value: object) -> SpanParent | None:
    """The parent a `traceparent` names, or None when the value is absent or not a valid version-00 one."""
    if not isinstance(value, str):
        return None
    match = _TRACEPARENT.match(value.strip())
    if match is None:
        return None
    trace_id, span_id, flags = match.groups()
    if set(trace_id) == {"0"} or set(span_id) == {"0"}:
        return None
    return SpanParent(trace_id, span_id, sampled=bool(int(flags, 16) & 1))


def format_traceparent(trace_id: str, span_id: str, sampled: bool = True) -> str:
    """The `traceparent` header value for a span (version 00)."""
    return f"00-{trace_id}-{span_id}-{'01' if sampled else '00'}"


def inspection_root(thread_id: str, forked_from: str | None = None) -> SpanParent:
    """The root of one inspection's trace: ids derived from the thread (and the checkpoint a replay or fork left).

    sha256 of a fixed prefix and the ids: the same inspection always names the same trace, a replay or a
    fork from a checkpoint names a trace of its own, and neither side has to store or exchange the ids.
    """
    digest = hashlib.sha256(f"sitewalk-trace:{thread_id}:{forked_from or ''}".encode()).hexdigest()
    return SpanParent(trace_id=digest[:32], span_id=digest[32:48], sampled=True)
