"""Once a frame: run a callback at most once per animation frame while events come, and once more after.

The run's stream brings a tool call's arguments in fragments of a few bytes, hundreds a second; drawing
each one costs a DOM write and a screen re-render that nobody could see. The stream's events are kept
(`calls.run_stream.RunStreamCalls.feed`) and taken by this gate, and a streaming screen is pushed by one
(`screen_feed.ScreenFeed`): at once when a frame has passed since
the last take, else when it has (the stream may pause: the last progress must not wait for more), and
at once when the caller says so (`now`: before an event that must come after them, and at the end).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["FRAME_S", "FrameGate"]

FRAME_S = 1 / 60


class FrameGate:
    def __init__(self, flush: Callable[[], None], interval_s: float = FRAME_S) -> None:
        self._flush = flush
        self._interval = interval_s
        self._last = float("-inf")
        self._trailing: asyncio.TimerHandle | None = None
        self._dirty = False

    def soon(self) -> None:
        """Something came: flushed now if a frame has passed, else when it has."""
        self._dirty = True
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self.now()
        elif self._trailing is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop (a plain function call): nothing can wait
                self.now()
                return
            self._trailing = loop.call_later(wait, self.now)

    def now(self, always: bool = False) -> None:
        """Flush what came, if anything (or `always`: whatever came), now."""
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None
        if self._dirty or always:
            self._dirty = False
            self._last = time.monotonic()
            self._flush()

    def cancel(self) -> None:
        """Stop waiting: no flush comes later (the caller takes what is left itself)."""
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None
        self._dirty = False
