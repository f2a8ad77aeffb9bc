"""Subgraphs' own checkpoints (the site walk's), kept apart and shown under the graph's step they ran from.

A subgraph compiled with `checkpointer=True` keeps one history per thread under its namespace without
task ids (`SiteWalkMiddleware.after_model`); the graph's history pages never contain it. It is read
page by page too (`get_history(..., checkpoint_ns=...)`), newest first, only as far back as the graph's
loaded steps reach, so the memory stays with what the inspector scrolled through.

Where a subgraph checkpoint is shown: each one names, in `metadata.parents[""]`, the graph's checkpoint
the subgraph ran from (the step that waited on the walk). One exception, checked on the real server: a
value changed with `update_state` at a subgraph checkpoint is stored under the *old* graph step, and the
run from it continues on a new graph checkpoint (a fork) that names the changed checkpoint in its own
`metadata.parents` (by namespace). The change is shown under that fork, on the branch it started.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .facts import StepFacts, facts_of

__all__ = ["NestedSteps", "checkpoint_object"]


def checkpoint_object(facts: StepFacts, thread_id: str) -> dict[str, Any]:
    """The whole checkpoint to send for a subgraph step (state, update_state, a run from it). Its map says
    where the graph resumes; Aegra's history leaves the map out, so it is made from `metadata.parents`."""
    mapping = dict(facts.checkpoint_map) or {"": facts.parent_step or "", facts.namespace: facts.id}
    return {"thread_id": thread_id, "checkpoint_id": facts.id, "checkpoint_ns": facts.namespace,
            "checkpoint_map": mapping}


class NestedSteps:
    def __init__(self) -> None:
        self._facts: dict[str, StepFacts] = {}
        self.cursor: dict[str, str] = {}  # namespace -> its oldest id loaded (the next page is read before it)
        self.exhausted: set[str] = set()  # namespaces whose oldest checkpoint is loaded

    def __len__(self) -> int:
        return len(self._facts)

    def __contains__(self, checkpoint_id: object) -> bool:
        return checkpoint_id in self._facts

    def add_page(self, namespace: str, entries: Iterable[Mapping[str, Any]], page_size: int) -> list[str]:
        """One history page of `namespace` (newest first); duplicates are dropped. Returns the new ids."""
        added: list[str] = []
        count = 0
        for entry in entries:
            count += 1
            facts = facts_of(entry)
            self.cursor[namespace] = facts.id
            if facts.id not in self._facts and facts.namespace:
                self._facts[facts.id] = facts
                added.append(facts.id)
        if count < page_size:
            self.exhausted.add(namespace)
        return added

    def wants_more(self, namespace: str, oldest_step: str | None) -> bool:
        """Whether `namespace` may still hold checkpoints of the graph's loaded steps (ids are time-ordered)."""
        if namespace in self.exhausted:
            return False
        cursor = self.cursor.get(namespace)
        return cursor is None or oldest_step is None or cursor > oldest_step

    def facts(self, checkpoint_id: str) -> StepFacts | None:
        return self._facts.get(checkpoint_id)

    def path(self, checkpoint_id: str) -> list[str]:
        """Ids from a subgraph checkpoint back through its own history (as loaded), newest first."""
        ids: list[str] = []
        walk: str | None = checkpoint_id
        while walk is not None and walk in self._facts:
            ids.append(walk)
            walk = self._facts[walk].parent_id
        return ids

    def on_branch(self, path: Sequence[str], resumed: Mapping[str, str]) -> dict[str, list[StepFacts]]:
        """The subgraph steps shown along one branch of the graph (`path`, its step ids): those its steps
        host that lie on the subgraph's own path back from the newest of them. A step shared by two
        branches thus shows the walk as this branch went on with it, not the other branch's answers."""
        hosts = self.by_host(resumed)
        hosted = [f.id for cid in path for f in hosts.get(cid, ())]
        if not hosted:
            return {}
        kept = set(self.path(max(hosted)))
        return {cid: [f for f in hosts[cid] if f.id in kept] for cid in path if cid in hosts}

    def by_host(self, resumed: Mapping[str, str]) -> dict[str, list[StepFacts]]:
        """Graph step id -> its subgraph checkpoints, newest first. `resumed` maps a subgraph checkpoint
        to the graph checkpoint a run made from it (see the module docstring)."""
        hosts: dict[str, list[StepFacts]] = {}
        for facts in sorted(self._facts.values(), key=lambda f: f.id, reverse=True):
            host = resumed.get(facts.id) if facts.source == "update" else None
            host = host or facts.parent_step
            if host:
                hosts.setdefault(host, []).append(facts)
        return hosts
