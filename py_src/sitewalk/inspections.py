"""This device's inspections, as a list the inspector comes back to (pure: no browser imports).

The app puts a stable device id (random, kept on the device) and the inspection id into each
thread's metadata when it creates it; the list is those threads, found by metadata on the server
(`POST /threads/search`), newest first, a page at a time. Each entry says where the inspection is:
running, waiting (and on what), done, cancelled or failed (and why), in the words of `inspection_status`,
the same as the status line's. A thread the search lists too briefly (a failed one; on Aegra, one that waits,
whose interrupts the search leaves out) is told from its state, read for it alone; a thread at rest from
its newest run (one small read: was it cancelled?).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from .agentserver.client import AgentServerClient
from .base.server_errors import AgentServerError, Unauthorized
from .inspection_status import InspectionStatus, needs_newest_run, needs_state, status_of_state, status_of_thread

__all__ = ["PAGE_SIZE", "Inspection", "InspectionList"]

PAGE_SIZE = 10


@dataclass(frozen=True)
class Inspection:
    thread_id: str
    inspection_id: str
    updated_at: str
    status: InspectionStatus

    @property
    def updated_text(self) -> str:
        """When it last changed, as the list shows it: "2026-12-05 19:04:16" (the server's time zone)."""
        return self.updated_at[:19].replace("T", " ")

    @classmethod
    def of(cls, thread: Mapping[str, object], state: Mapping[str, object] | None = None,
           newest_run: Mapping[str, object] | None = None) -> Inspection:
        """An entry from the search's thread, told from `state` (or its newest run) when it was read."""
        metadata = thread.get("metadata")
        inspection_id = metadata.get("inspection_id") if isinstance(metadata, dict) else None
        status = status_of_thread(thread, newest_run) if state is None else \
            status_of_state(state, thread_status=str(thread.get("status") or ""))
        return cls(str(thread["thread_id"]), str(inspection_id or "?"),
                   str(thread.get("updated_at") or thread.get("created_at") or ""), status)


@dataclass
class InspectionList:
    """The pages read so far. `more()` reads the next; a thread seen on an earlier page is not listed twice
    (the order is by last update, so a thread that changed meanwhile may come round again)."""

    client: AgentServerClient
    device_id: str
    page_size: int = PAGE_SIZE
    entries: list[Inspection] = field(default_factory=list)
    has_more: bool = True
    _offset: int = 0

    async def more(self) -> list[Inspection]:
        """Read the next page; return the entries it added."""
        if not self.has_more:
            return []
        page = await self.client.threads.search(metadata={"device_id": self.device_id}, limit=self.page_size,
                                                offset=self._offset, sort_by="updated_at", sort_order="desc")
        self._offset += len(page)
        self.has_more = len(page) == self.page_size
        known = {entry.thread_id for entry in self.entries}
        fresh = [dict(thread) for thread in page if thread["thread_id"] not in known]
        states = await asyncio.gather(*(self._state(thread) for thread in fresh))
        runs = await asyncio.gather(*(self._newest_run(thread) for thread in fresh))
        added = [Inspection.of(thread, state, run) for thread, state, run in zip(fresh, states, runs, strict=True)]
        self.entries.extend(added)
        return added

    async def _state(self, thread: Mapping[str, object]) -> dict[str, object] | None:
        """The thread's state when the listing says too little (None: the listing is enough)."""
        if not needs_state(thread):
            return None
        try:
            return dict(await self.client.threads.get_state(str(thread["thread_id"])))
        except Unauthorized:
            raise  # the whole list waits for a sign-in
        except AgentServerError:
            return None  # this one is listed as far as the search tells; the others are not held up

    async def _newest_run(self, thread: Mapping[str, object]) -> dict[str, object] | None:
        """The thread's newest run when it tells whether the thread is done or cancelled (None: not read)."""
        if not needs_newest_run(thread):
            return None
        try:
            runs = await self.client.runs.list(str(thread["thread_id"]), limit=1)
        except Unauthorized:
            raise  # the whole list waits for a sign-in
        except AgentServerError:
            return None  # listed as done, as the search tells; the others are not held up
        return dict(runs[0]) if runs else None
