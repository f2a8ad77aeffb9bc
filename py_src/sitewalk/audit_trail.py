"""An inspection's audit trail as the app shows and exports it: read through the store API, checked here.

The agent appends the records (`sitewalk_agent.audit`); the chain and its namespace are shared
(`sitewalk_shared.contracts.audit`), so the app checks the very chain it shows before it offers it as a
file. No browser import: runs under CPython too (the view is `sitewalk.app.audit_view`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sitewalk_shared.contracts.audit import HEAD_KEY, ChainProblem, audit_namespace, verify_chain

from .agentserver.client import AgentServerClient

__all__ = ["AuditTrail", "read_audit_trail"]

WHAT = {"tool_call": "tool call", "review_decision": "review", "ui_action": "UI action",
        "reconciliation": "reconciliation", "site_walk": "site walk"}


@dataclass
class AuditTrail:
    thread_id: str
    namespace: tuple[str, ...]
    records: list[dict[str, Any]] = field(default_factory=list)
    head: dict[str, Any] | None = None
    problem: ChainProblem | None = None

    def rows(self) -> list[dict[str, str]]:
        """One row per record for the panel: time, what, tool, outcome, reviewer, short hash."""
        return [_row(record) for record in self.records]

    def export_json(self) -> str:
        """The trail as a JSON file: what `python -m sitewalk_agent.audit export` prints, and the verdict."""
        verdict = "whole" if self.problem is None else f"broken: {self.problem}"
        return json.dumps({"thread_id": self.thread_id, "namespace": list(self.namespace), "chain": verdict,
                           "records": self.records, "head": self.head}, indent=2, ensure_ascii=False)

    def file_name(self) -> str:
        task = next((str(r["task_id"]) for r in self.records if r.get("task_id")), self.thread_id)
        return f"audit-{task}-{self.thread_id[:8]}.json"


def _row(record: dict[str, Any]) -> dict[str, str]:
    reviewer: dict[str, Any] = record["reviewer"] if isinstance(record.get("reviewer"), dict) else {}
    who = str(reviewer.get("display_name") or reviewer.get("identity") or "—")
    if reviewer and not reviewer.get("authenticated"):
        who += " (unauthenticated)"
    review = record.get("review_status")
    outcome = " · ".join(str(x) for x in (review if record.get("kind") == "review_decision" else None,
                                         record.get("outcome"), record.get("detail")) if x)
    return {"seq": str(record.get("seq", "?")), "time": str(record.get("time") or ""),
            "what": WHAT.get(str(record.get("kind")), str(record.get("kind"))),
            "tool": str(record.get("tool_name") or ""),
            "outcome": outcome, "reviewer": who, "hash": str(record.get("hash") or "")[:12],
            "tool_call_id": str(record.get("tool_call_id") or "")}


async def read_audit_trail(client: AgentServerClient, thread_id: str, owner: str | None = None) -> AuditTrail:
    """The thread's records in chain order, its head, and the first problem of the chain (None: whole)."""
    namespace = audit_namespace(thread_id, owner)
    items = [(str(i["key"]), i["value"]) for i in await client.store.list_items(namespace)]
    trail = AuditTrail(thread_id, namespace, [v for k, v in sorted(items) if k != HEAD_KEY], dict(items).get(HEAD_KEY))
    trail.problem = verify_chain(items) if items else None
    return trail
