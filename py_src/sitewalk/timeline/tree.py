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
from .nested import NestedSteps

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
    nested: tuple[Step, ...] = ()  # a subgraph's own steps that ran from here (the site walk), newest first

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
        self.nested = NestedSteps()  # subgraphs' own checkpoints, shown under the step each ran from
        self.namespaces: set[str] = set()  # the subgraphs with a history of their own seen in the pages

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
            self.namespaces.update(facts.subgraphs)
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
        path = self.path(head)
        hosts = self.nested.on_branch(path, self._resumed())
        return [self._step(cid, live, hosts) for cid in path]

    def step(self, checkpoint_id: str) -> Step | None:
        """A loaded step, of the graph or (nested) of a subgraph."""
        live = set(self.path(self.live_head)) if self.live_head else set()
        if checkpoint_id in self._facts:
            return self._step(checkpoint_id, live, self.nested.on_branch(self.path(checkpoint_id), self._resumed()))
        host = self.host(checkpoint_id)
        nested = self.nested.facts(checkpoint_id)
        return self._nested_step(nested, host in live) if nested is not None and host else None

    def host(self, checkpoint_id: str) -> str | None:
        """The graph step a subgraph step is shown under (None: not a loaded subgraph step, or its host is not)."""
        return next((host for host, found in self.nested.by_host(self._resumed()).items()
                     if host in self._facts and any(f.id == checkpoint_id for f in found)), None)

    def _resumed(self) -> dict[str, str]:
        """Subgraph checkpoint -> the graph checkpoint a run from it started with (the oldest that names it)."""
        return {sub: f.id for f in sorted(self._facts.values(), key=lambda f: f.id, reverse=True)
                for sub in f.resumed_from}

    def branches(self) -> list[Branch]:
        """Every loaded tip, the live one first, each with the point where it left the others."""
        tips = sorted((cid for cid in self._facts if not self._children.get(cid)), reverse=True)
        tips.sort(key=lambda cid: cid != self.live_head)
        resumed = self._resumed()
        return [self._branch(tip, resumed) for tip in tips]

    def _branch(self, tip: str, resumed: dict[str, str]) -> Branch:
        path = self.path(tip)
        hosts = self.nested.on_branch(path, resumed)
        fork_point = next((cid for cid in path[1:] if len(self._children.get(cid, [])) > 1), None)
        own = path[: path.index(fork_point)] if fork_point else path
        said = [self._name(cid).title for cid in reversed(own) if self._name(cid).kind in ("you", "decision")]
        # else the newest answer it holds (a fork between the site walk's questions may leave at the fork point)
        said = said or [step.name.title for cid in [*own, fork_point or ""] for f in hosts.get(cid, [])
                        if (step := self._nested_step(f, False)).name.kind == "answer"][:1]
        title = said[0] if said else self._name(tip).title
        return Branch(tip, fork_point, title, tip == self.live_head)

    def _name(self, checkpoint_id: str) -> StepName:
        facts = self._facts[checkpoint_id]
        return name_step(facts, self._facts.get(facts.parent_id or ""))

    def _step(self, checkpoint_id: str, live: set[str], hosts: dict[str, list[StepFacts]]) -> Step:
        facts = self._facts[checkpoint_id]
        parent = self._facts.get(facts.parent_id or "")
        node = ", ".join(parent.next) if parent and parent.next else facts.source
        children = self._children.get(checkpoint_id, [])
        nested = tuple(self._nested_step(f, checkpoint_id in live) for f in hosts.get(checkpoint_id, ()))
        return Step(facts, name_step(facts, parent), node, checkpoint_id in live,
                    checkpoint_id == self.live_head, max(0, len(children) - 1), nested)

    def _nested_step(self, facts: StepFacts, live: bool) -> Step:
        parent = self.nested.facts(facts.parent_id or "")
        node = ", ".join(parent.next) if parent and parent.next else facts.source
        return Step(facts, name_step(facts, parent), node, live, False, 0)
