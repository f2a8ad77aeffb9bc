"""The thread's timeline on the view: the newest page when a run ends, older pages on demand.

Never the whole history: `TimelinePager` reads pages of `PAGE_SIZE` with `before`. Every feed of one
view shares one `StaleGuard`, so when the view moves to another thread (or refreshes) a page still on
its way for the old one is dropped instead of drawn. A page refused for want of a sign-in (401) keeps
what is shown and says "sign in to load more". The subgraphs' own histories (the site walk's,
`timeline.nested`) are read the same way, as far back as the graph's loaded steps reach.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from ..agentserver.client import AgentServerClient
from ..base.server_errors import AgentServerError, Unauthorized
from ..timeline import (
    PAGE_SIZE,
    SIGN_IN_TO_LOAD,
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
        """The newest page, on the live branch (a run ended, the inspection opened). None when stale.

        The newest steps are shown as soon as they are read, the rest of the page under them after."""
        try:
            await self.pager.first_page(self._first_screen)
        except StaleResponse:
            return None  # another thread (or a newer refresh) owns the view now
        except HistoryPageFailed as error:
            return self._show(str(error))
        self.head = None
        return await self._with_nested()

    async def _first_screen(self, tree: TimelineTree) -> None:
        self.head = None
        await self._with_nested()

    async def older(self) -> TimelineShown | None:
        """One more page of older steps; a failed page says so and keeps the steps shown."""
        try:
            await self.pager.older()
        except StaleResponse:
            return None
        except HistoryPageFailed as error:
            return self._show(str(error))
        return await self._with_nested()

    async def _with_nested(self) -> TimelineShown | None:
        """Read the subgraphs' own pages back to the oldest step loaded, then show (None when stale)."""
        tree = self.pager.tree
        notice = ""
        for namespace in sorted(tree.namespaces):
            while tree.nested.wants_more(namespace, tree.cursor):
                try:
                    page = await self.client.threads.get_history(
                        self.thread.id, limit=self.pager.page_size, before=tree.nested.cursor.get(namespace),
                        checkpoint_ns=namespace)
                except Unauthorized:
                    notice = SIGN_IN_TO_LOAD
                    break
                except (OSError, AgentServerError) as error:
                    notice = f"the site walk's steps could not be read ({error}); the timeline keeps the steps it has"
                    break
                if self.pager.guard.owner != self.thread.id:
                    return None  # another thread's timeline owns the view now
                added = tree.nested.add_page(namespace, page, self.pager.page_size)
                if not added and len(page) >= self.pager.page_size:
                    break  # a page of duplicates only: nothing more to learn
        return self._show(notice)

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
