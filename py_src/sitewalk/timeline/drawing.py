"""What a timeline draw has to change in the list already on the page: a few rows, or all of it.

The list's rows are `TimelineShown.rows`: steps, and folds of a turn's checks (`folding.Fold`, keyed by
its newest step, so a fold at the end of the list that grows when an older page loads is a changed row).
Loading an older page only adds rows under the ones drawn, so rendering all of them again would cost
more with every page (and lose the scroll position, open elements and focus on a phone). `plan_draw`
compares the rows drawn last with the rows to show: when the drawn rows are still the top of the new
list, in the same order and on the same branch, only the new rows are appended (`Append.rows`), and
a drawn row whose content changed in place is drawn again alone (`Append.changed`: the oldest drawn
row gets its name and node once its parent loads; a site walk's steps may move under another host).
Anything else (a new run's steps at the top, a branch switch, a fork, a refresh back to the first
page, another thread) is a `Redraw`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .folding import Row
from .shown import TimelineShown

__all__ = ["Append", "Redraw", "plan_draw"]


@dataclass(frozen=True)
class Append:
    """Keep the drawn rows: draw `changed` again each in its place, then add `rows` after the last."""

    rows: tuple[Row, ...]  # older rows, newest first, to go under the drawn ones
    changed: tuple[Row, ...] = ()  # drawn rows (same id, same place) whose content is not what is drawn

    @property
    def nothing(self) -> bool:
        return not self.rows and not self.changed


@dataclass(frozen=True)
class Redraw:
    """Draw the whole list again; `reason` says why (for tests and the page's data-draw attribute)."""

    reason: str


def plan_draw(drawn: TimelineShown | None, now: TimelineShown) -> Append | Redraw:
    """How to go from the list drawn for `drawn` (None: nothing drawn) to the one for `now`."""
    if drawn is None:
        return Redraw("nothing drawn")
    if drawn.thread_id != now.thread_id:
        return Redraw("another thread")
    if drawn.head != now.head or drawn.live_head != now.live_head:
        return Redraw("another branch or a new live step")  # a run, a fork, a branch switch
    old, new = drawn.rows, now.rows
    if not old or len(new) < len(old):
        return Redraw("fewer steps")  # a refresh starts again from the newest page
    if not _same_ids(old, new):
        return Redraw("the drawn steps changed")
    changed = tuple(row for before, row in zip(old, new, strict=False) if row != before)
    if len(changed) > max(1, len(old) // 2):
        return Redraw("most drawn steps changed")  # one write is cheaper than many row swaps
    return Append(tuple(new[len(old):]), changed)


def _same_ids(old: Sequence[Row], new: Sequence[Row]) -> bool:
    return all(a.id == b.id for a, b in zip(old, new, strict=False))
