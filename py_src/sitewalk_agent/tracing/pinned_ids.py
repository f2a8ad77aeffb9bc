"""Spans whose ids are named in advance: the inspection's root span (`trace_wire.inspection_root`).

OpenTelemetry's SDK asks its tracer's `IdGenerator` for a new span's ids; `PinnedIds` hands out the ids set by
`pinned(...)` for the one span started inside it, and otherwise those of the generator it wraps. The SDK has
no other public way to export a span with ids of our choosing, and the root's ids must be the ones both the
server and the device compute from the thread, with no round trip.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

__all__ = ["PinnedIds", "pinned"]

_PINNED: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("sitewalk_pinned_ids", default=None)


class PinnedIds(IdGenerator):
    """The pinned ids while `pinned()` is active, else the wrapped generator's."""

    def __init__(self, fallback: IdGenerator | None = None) -> None:
        self._fallback = fallback or RandomIdGenerator()

    def generate_trace_id(self) -> int:
        ids = _PINNED.get()
        return ids[0] if ids else self._fallback.generate_trace_id()

    def generate_span_id(self) -> int:
        ids = _PINNED.get()
        return ids[1] if ids else self._fallback.generate_span_id()


@contextmanager
def pinned(trace_id: str, span_id: str) -> Iterator[None]:
    """Spans started (as roots) in this block get these hex ids."""
    token = _PINNED.set((int(trace_id, 16), int(span_id, 16)))
    try:
        yield
    finally:
        _PINNED.reset(token)
