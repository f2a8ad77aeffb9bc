"""Device tracing (issue 27): the browser's spans of an inspection, sent to the agent server's trace.

Imported only when config.json says `"traces": true` (`sitewalk.app` calls `start`); otherwise no module of
this package is loaded and the seam (`sitewalk.base.trace_hooks`) does nothing. `start` builds the recorder
with the browser's clock and random ids, the sender with the client's `send_device_spans`, and installs them
into the seam. Spans are sent when the app flushes (after each run, after a delivered resume), in the
background, one send at a time; the boot's spans are recorded when the first inspection's thread is known.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AbstractContextManager
from typing import Any

from ..base import trace_hooks
from ..base.device_storage import KeyValueStore
from .boot import record_boot
from .recorder import Recorder, checkpoint_of
from .sender import Post, SpanSender

__all__ = ["DeviceTracing", "checkpoint_of", "start"]


def new_span_id() -> str:
    """16 random lowercase hex digits, never all zero (W3C trace context)."""
    while (span_id := os.urandom(8).hex()) == "0" * 16:
        continue
    return span_id


class DeviceTracing:
    """The seam's recorder: spans to the `Recorder`, flushes to the `SpanSender`, the boot once."""

    def __init__(self, recorder: Recorder, sender: SpanSender, spawn: Callable[[Coroutine[Any, Any, Any]], object],
                 marks: Callable[[], Mapping[str, float]] | None = None) -> None:
        self.recorder = recorder
        self.sender = sender
        self.spawn = spawn
        self.marks = marks  # the page's boot marks, read once (None: no boot spans)
        self._sending = False
        self._again = False

    def span(self, name: str, carrier: object, attributes: Mapping[str, object]) -> AbstractContextManager[Any]:
        return self.recorder.span(name, carrier, attributes)

    def decisions(self, state: Mapping[str, Any], sent: Mapping[str, Mapping[str, Any]]
                  ) -> AbstractContextManager[None]:
        return self.recorder.decisions(state, sent)

    def thread(self, thread_id: str, forked_from: str | None, state: Mapping[str, Any] | None) -> None:
        if self.marks is not None:
            marks, self.marks = self.marks(), None
            record_boot(self.recorder, marks)
        self.recorder.thread(thread_id, forked_from, checkpoint_of(state))

    def forked(self, thread_id: str, checkpoint_id: str) -> None:
        self.recorder.thread(thread_id, checkpoint_id, None)

    def flush(self) -> None:
        if self._sending:
            self._again = True  # one send at a time: the one going sends again when it is done
            return
        self._sending = True
        self.spawn(self._send())

    async def _send(self) -> None:
        try:
            while True:
                self._again = False
                if not await self.sender.send_ready() or not self._again:
                    return
        finally:
            self._sending = False


def start(post: Post, spawn: Callable[[Coroutine[Any, Any, Any]], object],
          marks: Callable[[], Mapping[str, float]] | None = None, kept: KeyValueStore | None = None) -> DeviceTracing:
    """Turn device tracing on: spans from now on, sent with `post`, in tasks made by `spawn`; with `kept`, the
    spans an earlier page left unsent come back to be sent with the next ones."""
    recorder = Recorder(clock=time.time_ns, new_id=new_span_id)
    sender = SpanSender(recorder, post, kept)
    restored = sender.restore()
    tracing = DeviceTracing(recorder, sender, spawn, marks)
    trace_hooks.install(tracing)
    if restored:  # an earlier page's spans go now, not only after this page's first run (offline: they wait)
        tracing.flush()
    return tracing
