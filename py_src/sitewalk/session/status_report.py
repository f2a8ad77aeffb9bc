"""After each run, where the inspection is: read from the thread's state, told to the app in the words of
`sitewalk.inspection_status` (the list of inspections uses the same).

A run that failed raised `StreamError`; the state then holds the failed task's reason (both servers keep
it, while Aegra's stream only says "execution failed"). When the state cannot say more than "done" after
a failure, the stream's own reason is used: a failure is never reported as done. When the state cannot be
read at all (out of reach, a sign-in asked for), nothing is reported: the app says why elsewhere.

A thread at rest whose newest run was cancelled is "cancelled", not "done", as the list says it
(`inspection_status.needs_newest_run`): a server that leaves a cancelled thread `idle` (Aegra) says the
cancel only in that run's status, so a "done" state costs one small read of the newest run.
"""

from __future__ import annotations

from collections.abc import Callable

from ..agentserver.client import AgentServerClient
from ..base.server_errors import AgentServerError, StreamError
from ..inspection_status import CANCELLED, DONE, InspectionStatus, failed, status_of_state
from .thread import Thread

__all__ = ["OnStatus", "StatusReport"]

OnStatus = Callable[[str, InspectionStatus], None]
"""Told the inspection id (from the thread's values; '' when it has none) and where it is."""


class StatusReport:
    def __init__(self, client: AgentServerClient, thread: Thread, on_status: OnStatus | None = None) -> None:
        self.client = client
        self.thread = thread
        self.on_status = on_status

    async def report(self, error: StreamError | None = None) -> InspectionStatus | None:
        """Read the thread's state and tell where the inspection is (None: nothing to tell, or no one to tell)."""
        if self.on_status is None:
            return None
        try:
            state = dict(await self.client.threads.get_state(self.thread.id))
        except AgentServerError:
            if error is None:
                return None
            state = {}
        status = status_of_state(state)
        if error is not None and status is DONE:
            status = failed(str(error).removeprefix("run failed: "))
        elif status is DONE and await self._newest_run_cancelled():
            status = CANCELLED
        values = state.get("values") or {}
        self.on_status(str(values.get("inspection_id") or "") if isinstance(values, dict) else "", status)
        return status

    async def _newest_run_cancelled(self) -> bool:
        """Whether the thread's newest run was cancelled (`interrupted` with nothing pending); False when unread."""
        try:
            runs = await self.client.runs.list(self.thread.id, limit=1)
        except AgentServerError:
            return False
        return bool(runs) and dict(runs[0]).get("status") == "interrupted"
