"""An inspection's audit trail as the app shows and exports it: read through the store API, checked here.

The agent appends the records (`sitewalk_agent.audit`); the chain and its namespace are shared
(`sitewalk_shared.contracts.audit`), so the app checks the very chain it shows before it offers it as a
file. No browser import: runs under CPython too (the view is `sitewalk.app.audit_view`).

The chain alone cannot show a tail cut off together with the store's head pointer, nor a record
re-sealed with correct hashes below the API. The graph also commits the head {seq, hash} in the
thread's state (`audit_head`, checkpointed, never moved back), so the trail is compared with it too
(`head_mismatch`), as `python -m sitewalk_agent.audit verify` does with the thread's history: the
trail was cut, or changed, after step N.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sitewalk_shared.contracts.audit import HEAD_KEY, STATE_HEAD, ChainProblem, audit_namespace, verify_chain

from .agentserver.client import AgentServerClient
from .base.server_errors import AgentServerError, Unauthorized

__all__ = ["AuditTrail", "HeadMismatch", "head_mismatch", "read_audit_trail"]

WHAT = {"tool_call": "tool call", "review_decision": "review", "ui_action": "UI action",
        "reconciliation": "reconciliation", "site_walk": "site walk"}


@dataclass(frozen=True)
class HeadMismatch:
    """The trail is not what the thread's state committed: `cut` (it ends before the committed step),
    `changed` (the committed step's record is another one now: it, or a step before it, was rewritten
    and the chain re-sealed) or `unreadable` (the committed head is not a {seq, hash})."""

    kind: str
    committed: int  # the committed step (-1 when unreadable)
    ends_at: int  # the trail's last step

    def __str__(self) -> str:
        if self.kind == "cut":
            return (f"the trail was cut after step {self.ends_at}: the thread's checkpoints committed "
                    f"step {self.committed}")
        if self.kind == "changed":
            return (f"the trail was changed at or before step {self.committed}: that step is not the one "
                    "the thread's checkpoints committed")
        return "the head the thread's checkpoints committed is unreadable: the trail cannot be compared with it"


def _seq(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def head_mismatch(records: list[dict[str, object]], committed: object) -> HeadMismatch | None:
    """None when the head the thread's state committed (`audit_head`; None: nothing committed yet) is in
    the trail as it was; otherwise how the trail differs from it."""
    if committed is None:
        return None
    by_seq = {_seq(r.get("seq")): r for r in records if isinstance(r, dict)}
    ends_at = max((seq for seq in by_seq if seq is not None), default=0)
    if not isinstance(committed, dict):
        return HeadMismatch("unreadable", -1, ends_at)
    seq = _seq(committed.get("seq"))
    if seq is None or not isinstance(committed.get("hash"), str):
        return HeadMismatch("unreadable", -1, ends_at)
    if seq > ends_at:
        return HeadMismatch("cut", seq, ends_at)
    found = by_seq.get(seq)
    if found is None or found.get("hash") != committed["hash"]:
        return HeadMismatch("changed", seq, ends_at)
    return None


@dataclass
class AuditTrail:
    thread_id: str
    namespace: tuple[str, ...]
    records: list[dict[str, object]] = field(default_factory=list)
    head: dict[str, object] | None = None
    problem: ChainProblem | None = None
    committed: object = None  # the thread state's `audit_head` {seq, hash} (None: nothing committed yet)
    mismatch: HeadMismatch | None = None  # how the trail differs from `committed` (None: it does not)
    committed_unread: str | None = None  # why the thread's state could not be read (None: it was read)

    @property
    def whole(self) -> bool:
        """The chain links up and holds what the thread committed (or that could not be read: said apart)."""
        return self.problem is None and self.mismatch is None

    def verdict(self) -> str:
        """In words: whole, or the first thing wrong (the chain's own problem first)."""
        if self.problem is not None:
            return f"broken: {self.problem}"
        if self.mismatch is not None:
            return f"broken: {self.mismatch}"
        return "whole"

    def rows(self) -> list[dict[str, str]]:
        """One row per record for the panel: time, what, tool, outcome, reviewer, short hash."""
        return [_row(record) for record in self.records]

    def export_json(self) -> str:
        """The trail as a JSON file: what `python -m sitewalk_agent.audit export` prints, and the verdict."""
        return json.dumps({"thread_id": self.thread_id, "namespace": list(self.namespace), "chain": self.verdict(),
                           "records": self.records, "head": self.head, "committed_head": self.committed},
                          indent=2, ensure_ascii=False)

    def file_name(self) -> str:
        task = next((str(r["task_id"]) for r in self.records if r.get("task_id")), self.thread_id)
        return f"audit-{task}-{self.thread_id[:8]}.json"


def _row(record: dict[str, object]) -> dict[str, str]:
    signed = record.get("reviewer")
    reviewer: dict[str, object] = signed if isinstance(signed, dict) else {}
    who = str(reviewer.get("display_name") or reviewer.get("identity") or "—")
    if reviewer and not reviewer.get("authenticated"):
        who += " (unauthenticated)"
    review = record.get("review_status")
    field = f"field {record['field']}" if record.get("field") else None  # a refused review answer's field
    outcome = " · ".join(str(x) for x in (review if record.get("kind") == "review_decision" else None,
                                         record.get("outcome"), field, record.get("detail")) if x)
    return {"seq": str(record.get("seq", "?")), "time": str(record.get("time") or ""),
            "what": WHAT.get(str(record.get("kind")), str(record.get("kind"))),
            "tool": str(record.get("tool_name") or ""),
            "outcome": outcome, "reviewer": who, "hash": str(record.get("hash") or "")[:12],
            "tool_call_id": str(record.get("tool_call_id") or "")}


async def read_audit_trail(client: AgentServerClient, thread_id: str, owner: str | None = None) -> AuditTrail:
    """The thread's records in chain order, its head, the first problem of the chain (None: whole), and
    how it differs from the head the thread's state committed (one read of the state)."""
    namespace = audit_namespace(thread_id, owner)
    items = [(str(i["key"]), i["value"]) for i in await client.store.list_items(namespace)]
    trail = AuditTrail(thread_id, namespace, [v for k, v in sorted(items) if k != HEAD_KEY], dict(items).get(HEAD_KEY))
    trail.problem = verify_chain(items) if items else None
    try:
        values = (await client.threads.get_state(thread_id)).get("values")
    except Unauthorized:
        raise  # the sign-in form is up; the view says so
    except AgentServerError as exc:
        trail.committed_unread = str(exc)
        return trail
    trail.committed = values.get(STATE_HEAD) if isinstance(values, dict) else None
    trail.mismatch = head_mismatch(trail.records, trail.committed)
    return trail
