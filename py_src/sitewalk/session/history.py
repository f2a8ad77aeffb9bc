"""The thread's checkpoint history on the view, as a timeline (built by `sitewalk.timeline`)."""

from __future__ import annotations

from ..agentserver.client import AgentServerClient
from ..agentserver.schema import ThreadState
from ..timeline import Checkpoint, build_timeline
from .thread import Thread
from .view import View

__all__ = ["TimelineFeed"]

PAGE_SIZE = 50


class TimelineFeed:
    def __init__(self, client: AgentServerClient, thread: Thread, view: View) -> None:
        self.client = client
        self.thread = thread
        self.view = view

    async def refresh(self) -> list[Checkpoint]:
        """Read every checkpoint (page by page) and show the tree."""
        history: list[ThreadState] = []
        async for page in self.client.threads.iter_history(self.thread.id, page_size=PAGE_SIZE):
            history.extend(page)
        checkpoints = build_timeline(history)
        self.view.timeline(checkpoints)
        return checkpoints
