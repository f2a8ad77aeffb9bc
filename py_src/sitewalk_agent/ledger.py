"""The outcome ledger: what the browser answered for each headless tool call, kept in the Store.

LangGraph re-raises a headless tool's interrupt when a run is replayed from the checkpoint that
waited on it, with the same tool_call_id. The browser (and the official SDK, which never answers
an id twice) should not be asked again: the tool body looks the answer up here first, so a
replay reuses the recorded outcome instead of repeating a real-world effect.

The Store is shared by every branch of a thread, so the answer survives forks too. Without a
store (in-process tests) the ledger is a no-op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, cast

from langgraph.store.base import BaseStore

__all__ = ["LedgerEntry", "OutcomeLedger"]

NAMESPACE = ("sitewalk", "tool_outcomes")


class LedgerEntry(TypedDict):
    """What the ledger keeps of a call: the envelope the browser answered, and the interrupt it answered."""

    envelope: dict[str, object]  # a SuccessEnvelope or FailureEnvelope (sitewalk_shared.contracts.headless_wire)
    interrupt_id: str | None


class OutcomeLedger:
    def __init__(self, store: BaseStore | None = None, thread_id: str | None = None) -> None:
        self._store = store if thread_id else None
        # Namespace labels may not contain "."; thread ids are UUIDs, but be safe.
        self._namespace = (*NAMESPACE, str(thread_id or "").replace(".", "_"))

    async def get(self, tool_call_id: str) -> LedgerEntry | None:
        """The recorded entry {"envelope", "interrupt_id"} for a call, or None. As `put` stored it: the store
        hands it back as a plain dict, typed here, in this one place."""
        if self._store is None:
            return None
        item = await self._store.aget(self._namespace, tool_call_id)
        return cast(LedgerEntry, dict(item.value)) if item is not None else None

    async def put(self, tool_call_id: str, envelope: Mapping[str, object], interrupt_id: str | None = None) -> None:
        if self._store is None:
            return
        await self._store.aput(self._namespace, tool_call_id, {"envelope": envelope, "interrupt_id": interrupt_id})
