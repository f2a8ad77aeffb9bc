"""The thread's timeline on the view: the newest page when a run ends, older pages on demand.

Never the whole history: `TimelinePager` reads pages of `PAGE_SIZE` with `before`. Every feed of one
view shares one `StaleGuard`, so when the view moves to another thread (or refreshes) a page still on
its way for the old one is dropped instead of drawn.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from ..agentserver.client import AgentServerClient
from ..timeline import (
    PAGE_SIZE,
    HistoryPageFailed,
    StaleGuard,
    StaleResponse,
    TimelinePager,
    TimelineShown,
    TimelineTree,
    shown,
)
from .thread import Thread
from .view import View

__all__ = ["TimelineFeed"]

_GUARDS: WeakKeyDictionary[object, StaleGuard] = WeakKeyDictionary()


def guard_of(view: View) -> StaleGuard:
    """The one guard of a view: whichever thread's feed loads last owns what the view shows."""
    guard = _GUARDS.get(view)
    if guard is None:
        guard = _GUARDS[view] = StaleGuard()
    return guard


class TimelineFeed:
    def __init__(self, client: AgentServerClient, thread: Thread, view: View, page_size: int = PAGE_SIZE) -> None:
        self.client = client
        self.thread = thread
        self.view = view
        self.pager = TimelinePager(thread.id, self._page, guard_of(view), page_size)
        self.head: str | None = None  # the branch shown; None: the live one

    @property
    def tree(self) -> TimelineTree:
        return self.pager.tree

    async def refresh(self) -> TimelineShown | None:
        """The newest page, on the live branch (a run ended, the inspection opened). None when stale."""
        try:
            await self.pager.first_page()
        except StaleResponse:
            return None  # another thread (or a newer refresh) owns the view now
        except HistoryPageFailed as error:
            return self._show(str(error))
        self.head = None
        return self._show()

    async def older(self) -> TimelineShown | None:
        """One more page of older steps; a failed page says so and keeps the steps shown."""
        try:
            await self.pager.older()
        except StaleResponse:
            return None
        except HistoryPageFailed as error:
            return self._show(str(error))
        return self._show()

    async def open_branch(self, head: str | None) -> TimelineShown | None:
        """Show the branch ending at `head`, paging back until a page's worth of its steps is loaded
        (its steps are interleaved with the other branches' in the history pages)."""
        self.head = head
        while head is not None and len(self.tree.path(head)) < self.pager.page_size and not self.tree.exhausted:
            loaded = len(self.tree)
            if await self.older() is None or len(self.tree) == loaded:
                break
        return self._show()

    def show_branch(self, head: str | None) -> TimelineShown:
        """Show the branch ending at `head` (None: the live one)."""
        self.head = head
        return self._show()

    def notice(self, text: str) -> TimelineShown:
        return self._show(text)

    def _show(self, notice: str = "") -> TimelineShown:
        drawn = shown(self.thread.id, self.pager.tree, self.head, notice)
        self.view.timeline(drawn)
        return drawn

    async def _page(self, limit: int, before: str | None) -> list[dict[str, object]]:
        return list(await self.client.threads.get_history(self.thread.id, limit=limit, before=before))  # type: ignore[arg-type]
