"""Load a thread's timeline page by page: the newest page first, older ones as the inspector scrolls.

`fetch(limit, before)` is any function that reads one history page (the agent-server client's
`get_history`, or a recorded one in tests). Older pages are asked for by scrolling (the list's end
comes into view) and by the Older steps button: an ask while a page is on its way joins that load
instead of reading the same page twice, so the tree holds only the pages the inspector reached.
Each load holds a ticket of the shared `StaleGuard` and writes into the tree only while the ticket
is current. A page that fails is retried; when it still
fails the tree keeps every step it has and `HistoryPageFailed` says so; a page refused for want of a
sign-in (401) is not retried: `HistoryNeedsSignIn` says "sign in to load more".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..base.server_errors import ServerError, ServerUnreachable, Unauthorized
from .errors import HistoryNeedsSignIn, HistoryPageFailed, StaleResponse
from .guard import StaleGuard, Ticket
from .tree import TimelineTree

__all__ = ["PAGE_SIZE", "FetchPage", "TimelinePager"]

PAGE_SIZE = 20  # a phone screen and a half of steps
# A dropped connection or a 5xx is worth another try; a 404 or a bad request is not.
RETRYABLE: tuple[type[Exception], ...] = (OSError, TimeoutError, ServerUnreachable, ServerError)
RETRIES = 2  # a failed page is asked again this many times before the inspector is told

FetchPage = Callable[[int, str | None], Awaitable[Sequence[Mapping[str, Any]]]]
Wait = Callable[[int], Awaitable[None]]


async def _no_wait(attempt: int) -> None:
    return None


class TimelinePager:
    def __init__(self, thread_id: str, fetch: FetchPage, guard: StaleGuard, page_size: int = PAGE_SIZE,
                 wait: Wait = _no_wait) -> None:
        self.thread_id = thread_id
        self.fetch = fetch
        self.guard = guard
        self.page_size = page_size
        self.wait = wait
        self.tree = TimelineTree()
        self._ticket: Ticket | None = None
        self._loading: asyncio.Future[list[str]] | None = None  # the older page on its way, if any

    async def first_page(self) -> TimelineTree:
        """Start over from the newest checkpoint (a run ended, or the timeline opened).

        Raises StaleResponse when another load replaced this one while the page was on its way.
        """
        ticket = self.guard.claim(self.thread_id)
        self._loading = None  # an older page still on its way belongs to the tree being replaced
        page = await self._fetch(None)
        ticket.check()
        tree = TimelineTree()
        tree.add_page(page, self.page_size)
        self.tree = tree
        self._ticket = ticket
        return tree

    @property
    def loading(self) -> bool:
        return self._loading is not None and not self._loading.done()

    async def older(self) -> list[str]:
        """The next older page into the same tree; the ids it added ([] once the history is exhausted).

        While a page is on its way, a second ask (a scroll and a press at once) waits for that page."""
        if self._loading is None or self._loading.done():
            self._loading = asyncio.ensure_future(self._older())
        return await asyncio.shield(self._loading)

    async def _older(self) -> list[str]:
        if self.tree.exhausted or self.tree.cursor is None:
            return []
        ticket = self._ticket
        if ticket is None or not ticket.current:
            raise StaleResponse(f"the timeline of {self.thread_id} is no longer shown")
        page = await self._fetch(self.tree.cursor)
        ticket.check()
        return self.tree.add_page(page, self.page_size)

    async def _fetch(self, before: str | None) -> Sequence[Mapping[str, Any]]:
        last: Exception | None = None
        for attempt in range(RETRIES + 1):
            if attempt:
                await self.wait(attempt)
            try:
                return await self.fetch(self.page_size, before)
            except RETRYABLE as error:
                last = error
            except Unauthorized as error:
                raise HistoryNeedsSignIn() from error
        raise HistoryPageFailed(f"history page before {before or 'the newest'} failed after "
                                f"{RETRIES + 1} tries ({last}); the timeline keeps the steps it has")

