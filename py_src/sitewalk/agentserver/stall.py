"""A stream that goes silent is a dropped connection: give it up after a bounded wait.

On a weak network a connection can die without a FIN or a reset (the phone changes cell, a
middlebox forgets the flow): the read then waits forever and the run seems to hang. `langgraph dev`
sends a `: heartbeat` comment every 5 s on every stream (langgraph_api/sse.py), so once one has
been seen, a silence of several heartbeats means the connection is gone, whatever the run is doing.
Aegra sends no heartbeats: a quiet stream there may be a run that thinks, so such a stream gets
a longer limit (`QUIET_FACTOR` times the limit); giving up a live stream costs only a rejoin,
which passes on nothing twice (`rejoin`).

Neither httpx (its read timeout cannot be armed mid-stream) nor the browser's `fetch` does this,
hence this small wrapper; it is plain asyncio, so it runs the same in CPython and in Pyodide.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from ..base.server_errors import ServerUnreachable

__all__ = ["HEARTBEAT_SECONDS", "QUIET_FACTOR", "STALL_SECONDS", "StreamStalled", "until_stalled"]

HEARTBEAT_SECONDS = 5.0  # langgraph_api's heartbeat interval
STALL_SECONDS = 4 * HEARTBEAT_SECONDS  # four heartbeats missed: the connection is gone
QUIET_FACTOR = 3  # a stream that never heartbeated may be a run thinking: wait longer


class StreamStalled(ServerUnreachable):
    """Nothing arrived on a stream that heartbeats for longer than the stall limit."""


async def until_stalled(chunks: AsyncIterator[str], limit: Callable[[], float | None], url: str) -> AsyncIterator[str]:
    """Pass `chunks` on; when `limit()` (seconds, or None: no limit yet) passes without a chunk,
    close the source (which aborts its request) and raise StreamStalled."""
    source = aiter(chunks)
    try:
        while True:
            seconds = limit()
            try:
                if seconds is None:
                    text = await anext(source)
                else:
                    text = await asyncio.wait_for(anext(source), seconds)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise StreamStalled(url, f"nothing received for {seconds:g} s") from None
            yield text
    finally:
        with contextlib.suppress(Exception):
            await source.aclose()  # type: ignore[attr-defined]
