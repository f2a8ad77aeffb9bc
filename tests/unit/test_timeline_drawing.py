"""Append or redraw: what a timeline draw changes in the drawn list (`timeline.drawing.plan_draw`), from
recorded real history pages (a work order then a fork; the site walk with its nested steps).

The list is simulated as the view keeps it: one rendered row per step. Applying each plan to the rows
drawn before must give exactly the rows a full redraw would, page after page."""

from __future__ import annotations

import asyncio

import pytest
from recorded import load_history

from sitewalk.session.history import TimelineFeed
from sitewalk.session.thread import Thread
from sitewalk.timeline import Append, Fold, Redraw, TimelineShown, TimelineTree, fold_steps, plan_draw, shown
from sitewalk.ui.render import render_template

FORK = load_history("confirm_fork.json")
WALK = load_history("site_walk.json")
REVIEW = load_history("review_decided.json")  # one page: `all`


class _Client:
    """A history endpoint over recorded entries (the graph's, and a subgraph namespace's)."""

    def __init__(self, graph, nested=()):
        self.threads = self
        self.graph, self.nested = graph, list(nested)

    async def get_history(self, thread_id, limit=10, before=None, checkpoint_ns=""):
        entries = self.nested if checkpoint_ns else self.graph
        ids = [e["checkpoint"]["checkpoint_id"] for e in entries]
        start = 0 if before is None else ids.index(before) + 1
        return entries[start:start + limit]


class _Rows:
    """The drawn list as the view keeps it: one rendered row per row id (a step's, or a fold's), in page order."""

    def __init__(self):
        self.drawn: TimelineShown | None = None
        self.rows: list[tuple[str, str]] = []
        self.plans: list[Append | Redraw] = []

    def timeline(self, now):
        plan = plan_draw(self.drawn, now)
        if isinstance(plan, Redraw):
            self.rows = [(r.id, _row(r)) for r in now.rows]
        else:
            changed = {r.id: r for r in plan.changed}
            self.rows = [(i, _row(changed[i]) if i in changed else html) for i, html in self.rows]
            self.rows += [(r.id, _row(r)) for r in plan.rows]
        self.drawn = now
        self.plans.append(plan)
        assert "".join(html for _, html in self.rows) == str(render_template("timeline.j2", rows=now.rows))


def _row(row):
    return str(render_template("timeline.j2", rows=[row]))


def _feed(recorded, page_size, nested=()):
    view = _Rows()
    graph = [e for page in recorded.get("pages") or [recorded["all"]] for e in page]
    unique = list({e["checkpoint"]["checkpoint_id"]: e for e in graph}.values())  # the pages overlap
    return TimelineFeed(_Client(unique, nested), Thread(recorded["thread_id"], "inspection"), view, page_size), view


def _scroll_to_the_end(feed):
    while not feed.tree.exhausted:
        asyncio.run(feed.older())


@pytest.mark.parametrize("page_size", [2, 3, 5])
def test_older_pages_on_the_live_branch_only_append_and_match_a_full_redraw(page_size):
    feed, view = _feed(FORK, page_size)
    asyncio.run(feed.refresh())
    _scroll_to_the_end(feed)
    first, *older = view.plans
    assert isinstance(first, Redraw)
    assert older and all(isinstance(p, Append) for p in older), [getattr(p, "reason", "") for p in older]
    assert [i for i, _ in view.rows] == [r.id for r in fold_steps(feed.tree.steps())]
    # each append re-renders at most the one drawn row whose parent just loaded, never the list
    assert all(len(p.changed) <= 1 for p in older)


@pytest.mark.parametrize("page_size", [2, 3, 4])
def test_a_fold_of_checks_cut_by_a_page_grows_in_its_place_when_the_next_page_comes(page_size):
    """The newest five checks of the recorded review span the first pages: the fold drawn at the end of the
    list is drawn again in its place, with more steps, and nothing else is redrawn."""
    feed, view = _feed(REVIEW, page_size)
    asyncio.run(feed.refresh())
    first = view.drawn.rows[-1]
    assert isinstance(first, Fold) and len(first.steps) == page_size
    _scroll_to_the_end(feed)
    assert all(isinstance(p, Append) for p in view.plans[1:]), view.plans
    grown = [p for p in view.plans[1:] if any(isinstance(r, Fold) and r.id == first.id for r in p.changed)]
    assert grown  # the same row (same id), drawn again with its older steps
    [fold] = [r for r in view.drawn.rows if r.id == first.id]
    assert isinstance(fold, Fold) and len(fold.steps) == 5 and fold.title == "5 checks"


def test_the_site_walks_nested_steps_stay_right_when_pages_append():
    nested = [e for page in WALK["nested_pages"] for e in page]
    feed, view = _feed(WALK, 3, nested)
    asyncio.run(feed.refresh())
    _scroll_to_the_end(feed)
    assert any(isinstance(p, Append) and p.rows for p in view.plans)
    assert any(s.nested for s in view.drawn.steps)  # the walk's steps are drawn, under their hosts


def test_a_branch_switch_a_refresh_and_another_thread_redraw():
    feed, view = _feed(FORK, 3)
    asyncio.run(feed.refresh())
    _scroll_to_the_end(feed)
    other = next(b for b in feed.tree.branches() if not b.live)
    feed.show_branch(other.head)
    assert view.plans[-1] == Redraw("another branch or a new live step")
    feed.show_branch(None)
    assert isinstance(view.plans[-1], Redraw)
    asyncio.run(feed.refresh())  # a run ended: the newest page again, fewer rows than drawn
    assert view.plans[-1] == Redraw("fewer steps")
    elsewhere = shown("another-thread", feed.tree)
    assert plan_draw(view.drawn, elsewhere) == Redraw("another thread")


def test_a_new_run_at_the_top_redraws():
    graph = list({e["checkpoint"]["checkpoint_id"]: e for p in FORK["pages"] for e in p}.values())
    older, newer = TimelineTree(), TimelineTree()
    older.add_page(graph[2:], 100)  # the thread before its two newest checkpoints
    newer.add_page(graph, 100)
    before = shown("t", older)
    assert before.steps and plan_draw(before, shown("t", newer)) == Redraw("another branch or a new live step")


def test_nothing_new_changes_nothing_and_nothing_drawn_redraws():
    feed, view = _feed(FORK, 4)
    asyncio.run(feed.refresh())
    assert view.plans == [Redraw("nothing drawn")]
    feed.notice("a page failed")  # only the notice changes: the rows stay as drawn
    assert isinstance(view.plans[-1], Append) and view.plans[-1].nothing


def test_drawn_steps_that_are_no_longer_the_top_of_the_list_redraw():
    feed, view = _feed(FORK, 4)
    asyncio.run(feed.refresh())
    now = view.drawn
    swapped = TimelineShown(now.thread_id, [now.steps[1], now.steps[0], *now.steps[2:]], now.branches, now.head,
                            now.live_head, now.more)
    assert plan_draw(now, swapped) == Redraw("the drawn steps changed")
    empty = TimelineShown(now.thread_id, [], now.branches, now.head, now.live_head, now.more)
    assert plan_draw(empty, now) == Redraw("fewer steps")
