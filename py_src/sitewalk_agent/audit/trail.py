"""A thread's audit trail in the Agent Server's Store: append sealed records, one writer at a time.

Namespace: `("users", <identity>, "sitewalk", "audit", <thread_id>)`, `anonymous` without sign-in
(`sitewalk_shared.contracts.store`: where both servers' store APIs let the thread's owner read it). Keys:
`<seq:08d>-<hash12>` (see `sitewalk_shared.contracts.audit`), plus `head` = {seq, hash, key} of the last record.

Appends are compare-and-set safe across processes. Parallel tool calls of one AI message run at
once in one process: an asyncio lock per (event loop, thread) serializes them cheaply. Several
servers on one store (Aegra with `--workers 2`, LangGraph Platform) cannot share that lock, and the
Store API has no compare-and-set on either server (a put overwrites). So the whole read-head /
seal / write-record / move-head step also runs under a lock kept IN the store
(`sitewalk_agent.audit.store_lock`: announce a claim, look for other claims, withdraw and retry
on conflict; claims live in `(..., "sitewalk", "audit_locks", <thread_id>)`, outside the trail).
Two writers therefore never seal on the same head. Should one stall past the lock's lease, the key
scheme keeps both records and `verify` reports the fork instead of losing one silently.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping

from langgraph.store.base import BaseStore

from sitewalk_agent.audit.store_lock import store_lock
from sitewalk_shared.contracts.audit import GENESIS, HEAD_KEY, NAMESPACE, audit_namespace, seal

__all__ = ["NAMESPACE", "AuditTrail", "audit_namespace"]

# Weak: a lock nobody holds or waits for goes away (one per live thread, not one per thread ever seen).
_LOCKS: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = weakref.WeakValueDictionary()


def _lock_for(thread_id: str) -> asyncio.Lock:
    key = (id(asyncio.get_running_loop()), thread_id)
    lock = _LOCKS.get(key)
    if lock is None:
        lock = _LOCKS[key] = asyncio.Lock()
    return lock


class AuditTrail:
    """Appends records to one thread's chain in a LangGraph `BaseStore` (async API)."""

    def __init__(self, store: BaseStore, thread_id: str, owner: str | None = None) -> None:
        self._store = store
        self._thread_id = str(thread_id)
        self.namespace = audit_namespace(thread_id, owner)

    async def append(self, fields: Mapping[str, object], once: Mapping[str, object] | None = None
                     ) -> dict[str, object] | None:
        """Seal `fields` as the next record of the thread and store it; the stored record (with seq, hashes).

        `once`: field values that make the record the same event (e.g. a refusal's interrupt and code);
        when a record with all of them is already in the trail, nothing is appended and None comes back.
        The look happens under the lock, so two writers cannot both find it missing."""
        async with _lock_for(self._thread_id), store_lock(self._store, self.namespace):
            if once and await self._store.asearch(self.namespace, filter=dict(once), limit=1):
                return None
            head = await self._store.aget(self.namespace, HEAD_KEY)
            seq = int(head.value["seq"]) + 1 if head is not None else 1
            prev = str(head.value["hash"]) if head is not None else GENESIS
            key, record = seal(fields, seq, prev)
            await self._store.aput(self.namespace, key, record, index=False)
            await self._store.aput(self.namespace, HEAD_KEY, {"seq": seq, "hash": record["hash"], "key": key},
                                   index=False)
            return {**record, "key": key}
