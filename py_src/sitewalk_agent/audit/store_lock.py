"""A short mutual exclusion over one thread's audit chain, shared by every server on one Store.

The Store API (`BaseStore`: get, put, search, delete) has no compare-and-set on either server:
`langgraph dev`'s in-memory store overwrites, and Aegra's `AsyncPostgresStore.put` is
`INSERT … ON CONFLICT (prefix, key) DO UPDATE`. So a second writer with the same key silently
replaces the first, and a "version on the head" checked by reading it back can be passed by two
writers at once. What both stores do guarantee is that a put that has returned is seen by every
later get or search. The lock is built on that alone ("announce, look, withdraw"):

1. announce: put a claim under a key of this writer's own (a uuid), with the time, in the thread's
   lock namespace (`audit_locks`, beside the trail, so no read of the trail ever sees a claim);
2. look: search the lock namespace for other live claims;
3. none: the lock is held (until the claim is deleted); some: delete this claim, wait a random
   moment (jitter grows with each attempt) and start again.

Of two writers, the one that looks second sees the other's claim unless that one has withdrawn or
released it, so two writers never both hold the lock. Both can withdraw (each saw the other): the
random waits break that tie. A claim older than `LEASE_SECONDS` belongs to a writer that died while
holding it and is removed by whoever sees it; a writer that stalls longer than the lease while
holding it can overlap with the next one, and `verify` then reports the fork (nothing is lost
silently). After `MAX_ATTEMPTS` the append fails with `AuditLockTimeout`.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.base import BaseStore

from sitewalk_shared.errors import SitewalkError

__all__ = ["LEASE_SECONDS", "MAX_ATTEMPTS", "AuditLockTimeout", "lock_namespace", "store_lock"]

LOCK_LABEL = "audit_locks"
LEASE_SECONDS = 10.0
MAX_ATTEMPTS = 60
_JITTER_S = 0.005


class AuditLockTimeout(SitewalkError, RuntimeError):
    """Another writer held the thread's audit lock for every attempt."""


def lock_namespace(trail_namespace: tuple[str, ...]) -> tuple[str, ...]:
    """`(..., "sitewalk", "audit", thread)` -> `(..., "sitewalk", "audit_locks", thread)`."""
    return (*trail_namespace[:-2], LOCK_LABEL, trail_namespace[-1])


async def _rivals(store: BaseStore, namespace: tuple[str, ...], mine: str) -> bool:
    """Whether another live claim is there; claims past their lease are removed on the way."""
    found = await store.asearch(namespace, limit=50)
    now = time.time()
    live = False
    for item in found:
        if item.key == mine or tuple(item.namespace) != namespace:
            continue
        if now - float((item.value or {}).get("at", 0)) > LEASE_SECONDS:
            await store.adelete(namespace, item.key)  # its writer died holding it
        else:
            live = True
    return live


@asynccontextmanager
async def store_lock(store: BaseStore, trail_namespace: tuple[str, ...]) -> AsyncIterator[None]:
    """Hold the thread's audit lock in `store` for the body (see the module docstring)."""
    namespace = lock_namespace(trail_namespace)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        mine = uuid.uuid4().hex
        await store.aput(namespace, mine, {"at": time.time()}, index=False)
        if not await _rivals(store, namespace, mine):
            try:
                yield
            finally:
                await store.adelete(namespace, mine)
            return
        await store.adelete(namespace, mine)  # withdraw, wait, try again
        await asyncio.sleep(random.uniform(0, _JITTER_S * min(attempt, 20)))
    raise AuditLockTimeout(f"the audit chain {'/'.join(trail_namespace)} stayed locked for {MAX_ATTEMPTS} attempts")
