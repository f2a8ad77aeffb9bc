"""Load a thread's timeline page by page: the newest page first, older ones as the inspector scrolls.

`fetch(limit, before)` is any function that reads one history page (the agent-server client's
`get_history`, or a recorded one in tests). Older pages are asked for by scrolling (the list's end
comes into view) and by the Older steps button: an ask while a page is on its way joins that load
instead of reading the same page twice, so the tree holds only the pages the inspector reached.
Each load holds a ticket of the shared `StaleGuard` and writes into the tree only while the ticket
is current. A page that fails is retried; when it still
fails the tree keeps every step it has and `HistoryPageFailed` says so; a page refused for want of a
sign-in (401) is not retried: `HistoryNeedsSignIn` says "sign in to load more".

The first page can come in two reads (`first_page(first_screen=...)`): the newest `FIRST_SCREEN` steps,
handed to `first_screen` to draw, then the rest of the page before them. Every history entry carries the
whole state so far, so the newest entries are the heaviest: a short first read is drawn long before a
whole page would have arrived and parsed. The rest is the load on its way (an older-page ask joins it),
and the tree ends as one read of the whole page leaves it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..base.server_errors import ServerError, ServerUnreachable, Unauthorized
from .errors import HistoryNeedsSignIn, HistoryPageFailed, StaleResponse
from .guard import StaleGuard, Ticket
from .tree import TimelineTree

__all__ = ["FIRST_SCREEN", "PAGE_SIZE", "FetchPage", "FirstScreen", "TimelinePager"]

PAGE_SIZE = 20  # a phone screen and a half of steps
FIRST_SCREEN = 6  # the newest steps drawn before the rest of the first page is read
# A dropped connection or a 5xx is worth another try; a 404 or a bad request is not.
RETRYABLE: tuple[type[Exception], ...] = (OSError, TimeoutError, ServerUnreachable, ServerError)
RETRIES = 2  # a failed page is asked again this many times before the inspector is told

FetchPage = Callable[[int, str | None], Awaitable[Sequence[Mapping[str, Any]]]]
Wait = Callable[[int], Awaitable[None]]
FirstScreen = Callable[[TimelineTree], Awaitable[object]]


async def _no_wait(attempt: int) -> None:
    return None


class TimelinePager:
    def __init__(self, thread_id: str, fetch: FetchPage, guard: StaleGuard, page_size: int = PAGE_SIZE,
                 wait: Wait = _no_wait, first_screen: int = FIRST_SCREEN) -> None:
        self.thread_id = thread_id
        self.fetch = fetch
        self.guard = guard
        self.page_size = page_size
        self.first_screen = first_screen
        self.wait = wait
        self.tree = TimelineTree()
        self._ticket: Ticket | None = None
        self._loading: asyncio.Future[list[str]] | None = None  # the older page on its way, if any

    async def first_page(self, first_screen: FirstScreen | None = None) -> TimelineTree:
        """Start over from the newest checkpoint (a run ended, or the timeline opened); the whole first page.

        With `first_screen`, the newest `self.first_screen` steps are read first and handed to it (to be
        drawn) while the rest of the page is read. Raises StaleResponse when another load replaced this
        one while a read was on its way.
        """
        ticket = self.guard.claim(self.thread_id)
        self._loading = None  # an older page still on its way belongs to the tree being replaced
        size = min(self.first_screen, self.page_size) if first_screen is not None else self.page_size
        page = await self._fetch(None, size)
        ticket.check()
        tree = TimelineTree()
        tree.add_page(page, size)
        self.tree = tree
        self._ticket = ticket
        if first_screen is not None and size < self.page_size and not tree.exhausted:
            rest = self._read_older(self.page_size - size)  # on its way while the first screen is drawn
            await first_screen(tree)
            await asyncio.shield(rest)
        return tree

    @property
    def loading(self) -> bool:
        return self._loading is not None and not self._loading.done()

    async def older(self) -> list[str]:
        """The next older page into the same tree; the ids it added ([] once the history is exhausted).

        While a page is on its way (or the rest of the first page), a second ask (a scroll and a press at
        once) waits for that page."""
        loading = self._loading
        if loading is None or loading.done():
            loading = self._read_older(self.page_size)
        return await asyncio.shield(loading)

    def _read_older(self, size: int) -> asyncio.Future[list[str]]:
        """Start reading `size` steps before the cursor, into the tree shown now, under its ticket."""
        self._loading = asyncio.ensure_future(self._older(self.tree, self._ticket, size))
        return self._loading

    async def _older(self, tree: TimelineTree, ticket: Ticket | None, size: int) -> list[str]:
        if tree.exhausted or tree.cursor is None:
            return []
        if ticket is None or not ticket.current:
            raise StaleResponse(f"the timeline of {self.thread_id} is no longer shown")
        page = await self._fetch(tree.cursor, size)
        ticket.check()
        return tree.add_page(page, size)

    async def _fetch(self, before: str | None, size: int) -> Sequence[Mapping[str, Any]]:
        last: Exception | None = None
        for attempt in range(RETRIES + 1):
            if attempt:
                await self.wait(attempt)
            try:
                return await self.fetch(size, before)
            except RETRYABLE as error:
                last = error
            except Unauthorized as error:
                raise HistoryNeedsSignIn() from error
        raise HistoryPageFailed(f"history page before {before or 'the newest'} failed after "
                                f"{RETRIES + 1} tries ({last}); the timeline keeps the steps it has")

