"""The loaded part of a thread's checkpoint tree, page by page, newest first.

History pages list every branch's checkpoints interleaved, newest first, with no branch field:
the tree comes from `parent_checkpoint`. The tree keeps the facts of the pages loaded so far and
a cursor (the oldest id loaded, what the next page is read `before`), nothing else: the memory it
uses grows with what the inspector scrolled through, not with the thread's length.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .facts import StepFacts, facts_of
from .naming import StepName, name_step

__all__ = ["Branch", "Step", "TimelineTree"]


@dataclass(frozen=True, slots=True)
class Step:
    """One checkpoint as the timeline shows it."""

    facts: StepFacts
    name: StepName
    node: str  # the node whose writes made it (its parent's `next`), for the details view
    live: bool  # on the path of the thread's current checkpoint
    current: bool  # the thread's current checkpoint
    forks: int  # how many branches leave from here (children beyond the first)

    @property
    def id(self) -> str:
        return self.facts.id


@dataclass(frozen=True, slots=True)
class Branch:
    """A path from a tip back to where it left another branch."""

    head: str  # its newest checkpoint
    fork_point: str | None  # the checkpoint it shares with its sibling branch (None: the trunk)
    title: str  # what the inspector said or did first on it
    live: bool  # the branch the thread continues on


class TimelineTree:
    def __init__(self) -> None:
        self._facts: dict[str, StepFacts] = {}
        self._children: dict[str, list[str]] = {}
        self.cursor: str | None = None  # the oldest id loaded: the next page is read before it
        self.exhausted = False  # the oldest checkpoint of the thread is loaded
        self.live_head: str | None = None  # the thread's current checkpoint (newest of the first page)

    def __len__(self) -> int:
        return len(self._facts)

    def __contains__(self, checkpoint_id: object) -> bool:
        return checkpoint_id in self._facts

    def add_page(self, entries: Iterable[Mapping[str, Any]], page_size: int) -> list[str]:
        """Add one history page (newest first); duplicates of loaded checkpoints are dropped.

        Returns the ids that were new. A page shorter than `page_size` is the last one.
        """
        added: list[str] = []
        count = 0
        for entry in entries:
            count += 1
            facts = facts_of(entry)
            if self.live_head is None:
                self.live_head = facts.id  # the first entry of the first page is the thread's current one
            self.cursor = facts.id  # the server's order: the last entry is the oldest of the page
            if facts.id in self._facts:
                continue
            self._facts[facts.id] = facts
            if facts.parent_id:
                self._children.setdefault(facts.parent_id, []).append(facts.id)
            added.append(facts.id)
        if count < page_size:
            self.exhausted = True
        return added

    def facts(self, checkpoint_id: str) -> StepFacts | None:
        return self._facts.get(checkpoint_id)

    def path(self, head: str) -> list[str]:
        """Ids from `head` back to the oldest loaded ancestor, newest first."""
        ids: list[str] = []
        walk: str | None = head
        while walk is not None and walk in self._facts:
            ids.append(walk)
            walk = self._facts[walk].parent_id
        return ids

    def steps(self, head: str | None = None) -> list[Step]:
        """The loaded steps of the branch ending at `head` (the live one by default), newest first."""
        head = head or self.live_head
        if head is None:
            return []
        live = set(self.path(self.live_head)) if self.live_head else set()
        return [self._step(cid, live) for cid in self.path(head)]

    def step(self, checkpoint_id: str) -> Step | None:
        if checkpoint_id not in self._facts:
            return None
        return self._step(checkpoint_id, set(self.path(self.live_head)) if self.live_head else set())

    def branches(self) -> list[Branch]:
        """Every loaded tip, the live one first, each with the point where it left the others."""
        tips = sorted((cid for cid in self._facts if not self._children.get(cid)), reverse=True)
        tips.sort(key=lambda cid: cid != self.live_head)
        return [self._branch(tip) for tip in tips]

    def _branch(self, tip: str) -> Branch:
        path = self.path(tip)
        fork_point = next((cid for cid in path[1:] if len(self._children.get(cid, [])) > 1), None)
        own = path[: path.index(fork_point)] if fork_point else path
        said = [self._name(cid).title for cid in reversed(own) if self._name(cid).kind == "you"]
        title = said[0] if said else self._name(tip).title
        return Branch(tip, fork_point, title, tip == self.live_head)

    def _name(self, checkpoint_id: str) -> StepName:
        facts = self._facts[checkpoint_id]
        return name_step(facts, self._facts.get(facts.parent_id or ""))

    def _step(self, checkpoint_id: str, live: set[str]) -> Step:
        facts = self._facts[checkpoint_id]
        parent = self._facts.get(facts.parent_id or "")
        node = ", ".join(parent.next) if parent and parent.next else facts.source
        children = self._children.get(checkpoint_id, [])
        return Step(facts, name_step(facts, parent), node, checkpoint_id in live,
                    checkpoint_id == self.live_head, max(0, len(children) - 1))
