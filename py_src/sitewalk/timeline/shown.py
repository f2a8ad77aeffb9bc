"""What the view draws of a timeline: one branch's loaded steps, the branch switcher, and a notice."""

from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def on_live_branch(self) -> bool:
        return self.head == self.live_head


def shown(thread_id: str, tree: TimelineTree, head: str | None = None, notice: str = "") -> TimelineShown:
    """The branch ending at `head` (the live one when None, or when `head` is not loaded)."""
    head = head if head in tree else tree.live_head
    return TimelineShown(thread_id, tree.steps(head), tree.branches(), head, tree.live_head,
                         not tree.exhausted, notice)
