"""The inspector's Cancel: tools in progress end as cancelled, the server's run is stopped."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from sitewalk_shared.errors import SitewalkError

from ..agentserver.client import AgentServerClient
from ..base.server_errors import AgentServerError

__all__ = ["Cancellation", "Cancelled", "cancel_server_runs"]

T = TypeVar("T")


class Cancelled(SitewalkError):
    """The work was ended by the inspector's Cancel (not by the page going away)."""


class Cancellation:
    """Whether the inspector cancelled, and the tasks a cancel ends."""

    def __init__(self) -> None:
        self.cancelled = False
        self._tasks: set[asyncio.Future[Any]] = set()

    def cancel(self) -> None:
        self.cancelled = True
        for task in list(self._tasks):
            task.cancel()

    async def run(self, work: Awaitable[T]) -> T:
        """`await work` as a task of its own, so that `cancel()` can end it (a dialog closes).

        Raises Cancelled when a cancel ended it; a cancel of the caller itself propagates as is.
        """
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            if self.cancelled and task.cancelled():
                raise Cancelled() from None
            raise
        finally:
            self._tasks.discard(task)


async def cancel_server_runs(client: AgentServerClient, thread_id: str) -> None:
    """Cancel the thread's running runs (POST /threads/{id}/runs/{run_id}/cancel); checkpoints stay."""
    try:
        for run in await client.runs.list(thread_id, status="running"):
            await client.runs.cancel(thread_id, run["run_id"])
    except AgentServerError:
        pass  # nothing running, or the server is out of reach: the tool is cancelled either way
