"""This device's inspections, as a list the inspector comes back to (pure: no browser imports).

The app puts a stable device id (random, kept on the device) and the inspection id into each
thread's metadata when it creates it; the list is those threads, found by metadata on the server
(`POST /threads/search`), newest first, a page at a time. Each entry says where the inspection is:
running, waiting for you (the thread waits on an interrupt) or done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .agentserver.client import AgentServerClient, pending_interrupts

__all__ = ["PAGE_SIZE", "Inspection", "InspectionList", "InspectionStatus", "status_of_state", "status_of_thread"]

PAGE_SIZE = 10


class InspectionStatus(StrEnum):
    running = "running"
    waiting = "waiting for you"
    done = "done"
    failed = "failed"


def status_of_thread(thread: dict[str, Any]) -> InspectionStatus:
    """From a thread as the search lists it: its status, and the interrupts when the server sends them."""
    status = thread.get("status")
    if status == "busy":
        return InspectionStatus.running
    if status == "interrupted" or any(thread.get("interrupts") or {}):
        return InspectionStatus.waiting
    if status == "error":
        return InspectionStatus.failed
    return InspectionStatus.done


def status_of_state(state: dict[str, Any], run_active: bool = False) -> InspectionStatus:
    """From a thread's state: a pending interrupt waits for the inspector; a run in progress runs."""
    if pending_interrupts(state):
        return InspectionStatus.waiting
    return InspectionStatus.running if run_active else InspectionStatus.done


@dataclass(frozen=True)
class Inspection:
    thread_id: str
    inspection_id: str
    updated_at: str
    status: InspectionStatus

    @classmethod
    def of(cls, thread: dict[str, Any]) -> Inspection:
        metadata = thread.get("metadata") or {}
        return cls(str(thread["thread_id"]), str(metadata.get("inspection_id") or "?"),
                   str(thread.get("updated_at") or thread.get("created_at") or ""), status_of_thread(thread))


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
        added = [Inspection.of(dict(thread)) for thread in page if thread["thread_id"] not in known]
        self.entries.extend(added)
        return added
