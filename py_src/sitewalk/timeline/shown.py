"""What the view draws of a timeline: one branch's loaded steps (as rows: a turn's checks folded into
one, see `folding`), the branch switcher, and a notice."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .folding import Row, fold_steps
from .tree import Branch, Step, TimelineTree

__all__ = ["TimelineShown", "shown"]


@dataclass(frozen=True)
class TimelineShown:
    thread_id: str
    steps: list[Step]  # the shown branch, newest first
    branches: list[Branch]  # the live one first
    head: str | None  # the shown branch's newest step
    live_head: str | None  # the thread's current checkpoint
    more: bool  # older steps can be loaded
    notice: str = ""  # a failed page, a replay that had nothing to do, ...

    @cached_property
    def rows(self) -> tuple[Row, ...]:
        """The rows the list draws: the steps, each turn's checks folded into one row."""
        return fold_steps(self.steps)

    @property
    def on_live_branch(self) -> bool:
        return self.head == self.live_head


def shown(thread_id: str, tree: TimelineTree, head: str | None = None, notice: str = "") -> TimelineShown:
    """The branch ending at `head` (the live one when None, or when `head` is not loaded)."""
    head = head if head in tree else tree.live_head
    return TimelineShown(thread_id, tree.steps(head), tree.branches(), head, tree.live_head,
                         not tree.exhausted, notice)
