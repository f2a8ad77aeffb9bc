"""A run's stream that survives a dropped connection: rejoin the run, skip what was seen.

Runs are started with `stream_resumable` (the server gives every event an id and keeps the run
going when the client goes away). When the connection drops after the run is known (its
`metadata` event), the stream is rejoined with `Last-Event-ID`, and events seen before are not
passed on again. A connection can also end without an error (a proxy closing it cleanly) or go
silent (`stall`): a stream that ends while its run is still pending or running is rejoined the
same way, so a run is followed to its end whatever the network did.

The in-memory server's ids look like `<ms>-<seq>` and are ordered, but it gives several events
the same id within one millisecond, and a rejoin from an id skips *every* event with that id
(checked on these machines). So the rejoin starts from the last id before the newest one, and
events carrying the newest id are told apart by their payload. Aegra's ids are
`<run_id>_event_<seq>`, one per event, ordered by `<seq>`: the same rule holds for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ..base.server_errors import ServerUnreachable
from .client import AgentServerClient, StreamPart

__all__ = ["EventDeduper", "MAX_REJOINS", "stream_with_rejoin"]

MAX_REJOINS = 30  # a connection that keeps dropping: give up and let the caller say so
_GOING = ("pending", "running")
_END_CHECKS = 3
_END_CHECK_PAUSE_S = 0.2


class EventDeduper:
    """Tell the events of a rejoined stream that were passed on already from new ones."""

    def __init__(self) -> None:
        self.rejoin_from: str | None = None  # the id before the newest one: the Last-Event-ID to send
        self._newest: tuple[int, ...] | None = None
        self._newest_id: str | None = None
        self._with_newest: list[tuple[str, object]] = []  # (event, data) of the events with the newest id

    def fresh(self, part: StreamPart) -> bool:
        order = _order(part.id)
        if order is None:
            return True  # no id (not a resumable stream): nothing to compare
        if self._newest is not None and order < self._newest:
            return False
        seen = (part.event, part.data)
        if order == self._newest:
            if seen in self._with_newest:
                return False
            self._with_newest.append(seen)
            return True
        self.rejoin_from = self._newest_id
        self._newest, self._newest_id, self._with_newest = order, part.id, [seen]
        return True


def _order(event_id: str | None) -> tuple[int, ...] | None:
    if not event_id:
        return None
    _, aegra, sequence = event_id.rpartition("_event_")
    try:
        if aegra:
            return (int(sequence),)
        return tuple(int(piece) for piece in event_id.split("-"))
    except ValueError:
        return None


async def stream_with_rejoin(
    client: AgentServerClient,
    thread_id: str,
    assistant_id: str,
    *,
    wait: Callable[[int], Awaitable[None]],
    on_drop: Callable[[int], None] | None = None,
    run_id: str | None = None,
    **run_kwargs: Any,
) -> AsyncIterator[StreamPart]:
    """`client.runs.stream(...)`, rejoined after each drop (`wait(attempt)` first, e.g. for the network).

    With `run_id`, no run is started: that (resumable) run's stream is joined from its start.
    A drop before the run is known raises ServerUnreachable: whether the run started is then
    unknown, and the caller decides (see the session's outbox).
    """
    dedupe = EventDeduper()
    if run_id is not None:
        source = client.runs.join_stream(thread_id, run_id)
    else:
        source = client.runs.stream(thread_id, assistant_id, stream_resumable=True, on_disconnect="continue",
                                    **run_kwargs)
    drops = 0
    while True:
        try:
            async for part in source:
                if run_id is None and part.event == "metadata" and isinstance(part.data, dict):
                    run_id = part.data.get("run_id")
                if dedupe.fresh(part):
                    yield part
            if run_id is None or await _run_is_over(client, thread_id, run_id):
                return
        except ServerUnreachable:
            if run_id is None or drops >= MAX_REJOINS:
                raise
        drops += 1
        if on_drop is not None:
            on_drop(drops)
        await wait(drops)
        source = client.runs.join_stream(thread_id, run_id, last_event_id=dedupe.rejoin_from)


async def _run_is_over(client: AgentServerClient, thread_id: str, run_id: str) -> bool:
    """Whether a stream that ended cleanly ended with its run. A proxy (or a server between
    restarts) may close a connection as cleanly as a finished run does; a run still pending or
    running after its stream ended lost its connection, and is rejoined like after a reset."""
    for attempt in range(_END_CHECKS):
        if (await client.runs.get(thread_id, run_id)).get("status") not in _GOING:
            return True
        if attempt + 1 < _END_CHECKS:  # the server may close the stream just before it records the end
            await asyncio.sleep(_END_CHECK_PAUSE_S)
    return False
