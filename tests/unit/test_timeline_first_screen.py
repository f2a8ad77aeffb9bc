"""The first page in two reads (`TimelinePager.first_page(first_screen=...)`): the newest steps handed over to
be drawn while the rest of the page is read, from recorded real history pages. The tree ends as one read of
the whole page leaves it; an older-page ask meanwhile joins the rest; a newer load makes the rest stale."""

from __future__ import annotations

import asyncio

import pytest
from history_endpoint import older_pages_held, served
from recorded import load_history

from sitewalk.base.server_errors import ServerError
from sitewalk.session.history import TimelineFeed
from sitewalk.session.thread import Thread
from sitewalk.timeline import (
    Append,
    HistoryPageFailed,
    Redraw,
    StaleGuard,
    StaleResponse,
    TimelinePager,
    TimelineShown,
    TimelineTree,
    plan_draw,
    shown,
)

RECORDED = load_history("confirm_fork.json")
ALL = RECORDED["all"]


def _id(entry):
    return entry["checkpoint"]["checkpoint_id"]


def _drawn(tree: TimelineTree):
    """What the list shows of a tree: every row and step as drawn, the branches, and whether more is left."""
    now = shown("t", tree)
    return now.rows, now.steps, now.branches, tree.cursor, tree.exhausted


def _first_page(entries, first_screen, page_size=8):
    calls, handed = [], []

    async def draw(tree):
        handed.append((len(tree), list(calls), tree.exhausted))

    pager = TimelinePager("t", served(entries, calls), StaleGuard(), page_size=page_size, first_screen=first_screen)
    tree = asyncio.run(pager.first_page(draw))
    return pager, tree, calls, handed


def test_the_newest_steps_are_handed_over_first_and_the_page_ends_as_one_read_leaves_it():
    pager, tree, calls, handed = _first_page(ALL, first_screen=3)
    assert handed == [(3, [(3, None)], False)]  # drawn after the first read alone
    assert calls == [(3, None), (5, _id(ALL[2]))]  # then the rest of the page, before the first screen's last
    whole_calls = []
    whole = asyncio.run(TimelinePager("t", served(ALL, whole_calls), StaleGuard(), page_size=8).first_page())
    assert whole_calls == [(8, None)]  # without a first screen: one read, as before
    assert _drawn(tree) == _drawn(whole) and len(tree) == 8
    assert not pager.loading
    more = asyncio.run(pager.older())  # scrolling on reads whole pages from there
    assert calls[-1] == (8, _id(ALL[7])) and len(more) == 8


def test_a_history_shorter_than_the_first_screen_is_one_read_and_drawn_by_the_caller():
    pager, tree, calls, handed = _first_page(ALL[:2], first_screen=3)
    assert calls == [(3, None)] and handed == [] and tree.exhausted and len(tree) == 2


def test_a_history_ending_with_the_first_screen_is_exhausted_after_the_rest_comes_back_empty():
    pager, tree, calls, handed = _first_page(ALL[:3], first_screen=3)
    assert calls == [(3, None), (5, _id(ALL[2]))] and tree.exhausted and len(tree) == 3


def test_an_older_ask_while_the_rest_is_on_its_way_joins_it():
    calls: list = []
    endpoint = served(ALL, calls)
    gate = asyncio.Event()

    slow = older_pages_held(endpoint, gate)

    async def go():
        pager = TimelinePager("t", slow, StaleGuard(), page_size=8, first_screen=3)
        asked = []

        async def draw(tree):  # the list's end is in view on the first screen: the sentinel asks for more
            asked.append(asyncio.create_task(pager.older()))
            await asyncio.sleep(0)
            assert pager.loading
            gate.set()

        tree = await pager.first_page(draw)
        return tree, await asked[0]

    tree, joined = asyncio.run(go())
    assert calls == [(3, None), (5, _id(ALL[2]))]  # the rest only, not a page of its own as well
    assert joined == [_id(e) for e in ALL[3:8]] and len(tree) == 8


def test_a_newer_load_while_the_first_screen_is_drawn_makes_the_rest_stale():
    guard = StaleGuard()
    calls: list = []
    other = TimelinePager("other", served(ALL[10:], []), guard)

    async def go():
        pager = TimelinePager("t", served(ALL, calls), guard, page_size=8, first_screen=3)

        async def draw(tree):
            await other.first_page()  # the view moved to another thread before the rest was asked

        with pytest.raises(StaleResponse):
            await pager.first_page(draw)
        return pager

    pager = asyncio.run(go())
    assert calls == [(3, None)] and len(pager.tree) == 3  # the rest is not read for a tree no longer shown


def test_the_rest_failing_keeps_the_first_screen_and_says_so():
    calls: list = []
    endpoint = served(ALL, calls)

    async def flaky(limit, before):
        if before is not None:
            raise ServerError(502)
        return await endpoint(limit, before)

    async def draw(tree):
        return None

    pager = TimelinePager("t", flaky, StaleGuard(), page_size=8, first_screen=3)
    with pytest.raises(HistoryPageFailed):
        asyncio.run(pager.first_page(draw))
    assert len(pager.tree) == 3 and pager.tree.cursor == _id(ALL[2])


class _Client:
    def __init__(self, entries):
        self.threads = self
        self.entries = entries

    async def get_history(self, thread_id, limit=10, before=None, checkpoint_ns=""):
        ids = [_id(e) for e in self.entries]
        start = 0 if before is None else ids.index(before) + 1
        return self.entries[start:start + limit]


class _View:
    def __init__(self):
        self.drawn: list[TimelineShown] = []

    def timeline(self, now):
        self.drawn.append(now)


def test_the_feed_draws_the_first_screen_then_appends_the_rest_under_it():
    unique = list({_id(e): e for page in RECORDED["pages"] for e in page}.values())
    view, whole_view = _View(), _View()
    feed = TimelineFeed(_Client(unique), Thread(RECORDED["thread_id"], "inspection"), view, page_size=8)
    feed.pager.first_screen = 3
    asyncio.run(feed.refresh())
    whole = TimelineFeed(_Client(unique), Thread(RECORDED["thread_id"], "inspection"), whole_view, page_size=8)
    whole.pager.first_screen = 8  # one read of the whole page
    asyncio.run(whole.refresh())
    first, last = view.drawn
    assert len(first.steps) == 3 and len(whole_view.drawn) == 1
    assert last.rows == whole_view.drawn[0].rows and last.more == whole_view.drawn[0].more
    assert isinstance(plan_draw(None, first), Redraw) and isinstance(plan_draw(first, last), Append)


def test_a_newer_load_while_the_rest_is_on_its_way_keeps_it_out():
    guard = StaleGuard()
    calls: list = []
    endpoint = served(ALL, calls)
    gate = asyncio.Event()
    other = TimelinePager("other", served(ALL[10:], []), guard)

    asked = asyncio.Event()

    slow = older_pages_held(endpoint, gate, asked)

    async def draw(tree):
        return None

    async def go():
        pager = TimelinePager("t", slow, guard, page_size=8, first_screen=3)
        loading = asyncio.create_task(pager.first_page(draw))
        await asyncio.wait_for(asked.wait(), 5)  # the rest is on its way
        await other.first_page()  # the view moved to another thread meanwhile
        gate.set()
        with pytest.raises(StaleResponse):
            await loading
        return pager

    pager = asyncio.run(go())
    assert calls == [(3, None), (5, _id(ALL[2]))] and len(pager.tree) == 3  # read, never written
