"""Calls whose answer never came (`outcome_unknown`), and their reconciliation from the work-order system.

A reviewed `create_work_order` sends its request to the ticket system and waits at most
`SITEWALK_WORKORDERS_TIMEOUT_MS` (default 5000). When the wait runs out the request may still land:
the call is neither failed nor succeeded. It is recorded three ways: its tool message carries the
`outcome_unknown` envelope (`sitewalk_shared.contracts.envelope.unknown_outcome`), the audit record of the
call says `outcome_unknown`, and the thread's state keeps it in `call_outcomes`:

    call_outcomes[tool_call_id] = {"status": "outcome_unknown", "tool", "idempotency_key", "inspection_id",
                                   "since"}

Reconciliation looks the order up in the work-order database by that idempotency key, never guesses:

- before every model call (`FieldActionsMiddleware.awrap_model_call`: right after the tool batch,
  and in every later run on the thread, e.g. on the inspector's next message): found, the
  entry becomes `{"status": "succeeded", "work_order", "reconciled_at", "how"}` and an audit
  record of kind `reconciliation` is appended; not found, it stays `outcome_unknown` (the request
  may still be in flight), and nothing is retried;
- before any retry: a new `create_work_order` whose key has an unknown entry looks the key up first
  and answers the order it finds; only when there is none does it file one, under the same UNIQUE
  key, so a request that lands late files nothing more. Either way the old call is settled.

The model is told the entries (a note added to its system message), so it does not retry on a guess.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Annotated, NotRequired

from langchain.agents.middleware import AgentState
from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore
from typing_extensions import TypedDict  # in the state schema: pydantic needs this one before Python 3.12

from sitewalk_agent.audit.context import now
from sitewalk_agent.audit.record import record_reconciliation
from sitewalk_agent.order_mirror import mirror_order
from sitewalk_agent.workorders import WorkOrder, WorkOrderLedger, open_work_orders

__all__ = ["NOTE_TITLE", "CallOutcome", "OutcomeState", "UNKNOWN", "order_timeout_s", "outcomes_note", "reconcile",
           "settled", "unknown_entry", "unresolved"]

UNKNOWN = "outcome_unknown"
TIMEOUT_ENV = "SITEWALK_WORKORDERS_TIMEOUT_MS"
DEFAULT_TIMEOUT_MS = 5000
NOTE_TITLE = "Calls whose answer never came (outcome_unknown), reconciled from the work-order system by key:"


class CallOutcome(TypedDict):
    """A call's entry in `call_outcomes`: `outcome_unknown` since a time, then as reconciled."""

    status: str  # outcome_unknown | succeeded
    tool: str
    idempotency_key: str
    inspection_id: str | None
    since: str
    work_order: NotRequired[object]  # the order's id, once reconciled
    reconciled_at: NotRequired[str]
    how: NotRequired[str]


def merge_outcomes(left: Mapping[str, object] | None, right: Mapping[str, object] | None) -> dict[str, object]:
    """Parallel tool calls each add their own entry; a later entry for a call replaces the earlier."""
    return {**(left or {}), **(right or {})}


class OutcomeState(AgentState):
    call_outcomes: NotRequired[Annotated[dict[str, CallOutcome], merge_outcomes]]
    """tool_call_id -> the call's outcome when its answer never came, then as reconciled (see the module)."""


def order_timeout_s() -> float:
    """How long a reviewed tool waits for the work-order system (`SITEWALK_WORKORDERS_TIMEOUT_MS`)."""
    try:
        ms = float(os.environ.get(TIMEOUT_ENV, "") or DEFAULT_TIMEOUT_MS)
    except ValueError:
        ms = DEFAULT_TIMEOUT_MS
    return min(max(ms, 10.0), 600_000.0) / 1000.0


def unknown_entry(tool: str, key: str, inspection_id: str | None = None) -> CallOutcome:
    return {"status": UNKNOWN, "tool": tool, "idempotency_key": key, "inspection_id": inspection_id, "since": now()}


def _outcomes_of(state: Mapping[str, object]) -> dict[str, CallOutcome]:
    """The state's `call_outcomes` (as its schema says; {} when it has none)."""
    found = state.get("call_outcomes") or {}
    return found if isinstance(found, dict) else {}


def unresolved(state: Mapping[str, object], key: str | None = None) -> dict[str, CallOutcome]:
    """The entries still `outcome_unknown` (those for `key` only, when given)."""
    return {call_id: entry for call_id, entry in _outcomes_of(state).items()
            if entry.get("status") == UNKNOWN and (key is None or entry.get("idempotency_key") == key)}


def settled(entry: CallOutcome, order: Mapping[str, object], how: str) -> CallOutcome:
    return {**entry, "status": "succeeded", "work_order": order["id"], "reconciled_at": now(), "how": how}


async def lookup(orders: WorkOrderLedger, key: str) -> WorkOrder | None:
    """The order filed under `key`; None when there is none or the system does not answer in time."""
    try:
        return await asyncio.wait_for(orders.aget(key), order_timeout_s())
    except TimeoutError:
        return None


async def reconcile(state: Mapping[str, object], store: BaseStore | None, config: RunnableConfig | None,
                    orders: WorkOrderLedger | None = None) -> dict[str, CallOutcome]:
    """Look every unknown call up by its key: the entries that are now known (each one audited)."""
    pending = unresolved(state)
    if not pending:
        return {}
    orders = orders or open_work_orders()
    known: dict[str, CallOutcome] = {}
    inspection = state.get("inspection_id")
    for call_id, entry in pending.items():
        order = await lookup(orders, str(entry.get("idempotency_key")))
        if order is None:
            continue  # maybe still in flight: it stays unknown, and nothing is retried here
        known[call_id] = settled(entry, order, "found in the work-order system by its idempotency key")
        await mirror_order(store, config, order,
                           entry.get("inspection_id") or (inspection if isinstance(inspection, str) else None))
        await record_reconciliation(store, config, state, call_id, known[call_id])
    return known


def outcomes_note(state: Mapping[str, object], known: Mapping[str, CallOutcome] | None = None) -> str | None:
    """What the model is told about calls whose answer never came (None: there are none); `known`: the
    entries just reconciled, over the state's."""
    entries = {**_outcomes_of(state), **(known or {})}
    if not entries:
        return None
    lines = [NOTE_TITLE]
    for call_id, entry in entries.items():
        if entry.get("status") == UNKNOWN:
            said = ("still unknown: not in the work-order system yet (it may still land; a retry with the same "
                    "arguments is safe, the key files at most one order)")
        else:
            said = f"{entry.get('status')}: work order {entry.get('work_order')}"
        lines.append(f"- {entry.get('tool')} {call_id} (key {entry.get('idempotency_key')}): {said}")
    return "\n".join(lines)
