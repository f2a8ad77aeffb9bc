"""Build a checkpoint timeline (a tree) from a thread's history entries.

The history API lists checkpoints newest first with no branch field; the tree comes from
`parent_checkpoint`. Each checkpoint is labelled with the node whose writes produced it (its
parent's `next`), its message count, whether it waits on an interrupt, and whether it is on the
path of the current head.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Checkpoint:
    id: str
    parent_id: str | None
    step: int | None
    source: str
    node: str
    next: list[str]
    created_at: str
    message_count: int
    interrupted: bool
    children: list[str] = field(default_factory=list)
    current: bool = False
    on_current_path: bool = False

    @property
    def is_branch_point(self) -> bool:
        return len(self.children) > 1


def _checkpoint_id(config: Any) -> str | None:
    if not isinstance(config, dict):
        return None
    return config.get("checkpoint_id") or (config.get("configurable") or {}).get("checkpoint_id")


def build_timeline(history: Iterable[Mapping[str, Any]], current_id: str | None = None) -> list[Checkpoint]:
    """Checkpoints oldest first; `current_id` defaults to the newest one."""
    entries = list(history)
    by_id: dict[str, Checkpoint] = {}
    for entry in entries:
        cid = _checkpoint_id(entry.get("checkpoint"))
        if not cid or cid in by_id:
            continue  # duplicate entries across pages are dropped, not doubled
        metadata = entry.get("metadata") or {}
        values = entry.get("values") or {}
        messages = values.get("messages") if isinstance(values, dict) else None
        tasks = entry.get("tasks") or []
        by_id[cid] = Checkpoint(
            id=cid,
            parent_id=_checkpoint_id(entry.get("parent_checkpoint")),
            step=metadata.get("step"),
            source=str(metadata.get("source") or ""),
            node="",
            next=list(entry.get("next") or []),
            created_at=str(entry.get("created_at") or ""),
            message_count=len(messages) if isinstance(messages, list) else 0,
            interrupted=bool(entry.get("interrupts")) or any(t.get("interrupts") for t in tasks if isinstance(t, dict)),
        )
    for cp in by_id.values():
        parent = by_id.get(cp.parent_id) if cp.parent_id else None
        if parent:
            parent.children.append(cp.id)
        if cp.source == "input":
            cp.node = "input"
        elif cp.source in ("update", "fork"):
            cp.node = f"{cp.source}"
        elif parent and parent.next:
            cp.node = ", ".join(parent.next)
        else:
            cp.node = cp.source or "start"
    ordered = sorted(by_id.values(), key=lambda c: (c.created_at, c.step if c.step is not None else -1))
    if ordered:
        head = by_id.get(current_id or "") or ordered[-1]
        head.current = True
        walk: Checkpoint | None = head
        while walk:
            walk.on_current_path = True
            walk = by_id.get(walk.parent_id) if walk.parent_id else None
    return ordered
