"""The audit chain: canonical hashing, sealing, and verify's verdicts (whole, edited, missing, reordered, forked)."""

from __future__ import annotations

import asyncio
import hashlib
import random
import threading
import time
from contextlib import asynccontextmanager

import pytest
from langgraph.store.memory import InMemoryStore

from sitewalk_agent.audit import store_lock as store_lock_module
from sitewalk_agent.audit import trail as trail_module
from sitewalk_agent.audit.store_lock import LEASE_SECONDS, AuditLockTimeout, lock_namespace
from sitewalk_agent.audit.trail import AuditTrail, audit_namespace
from sitewalk_shared.contracts.audit import GENESIS, HEAD_KEY, record_hash, seal, verify_chain
from sitewalk_shared.contracts.canonical import args_hash, canonical_json
from sitewalk_shared.contracts.store import namespace_owner


def test_canonical_json_sorts_keys_drops_spaces_and_keeps_utf8():
    assert canonical_json({"b": 1, "a": [1, {"d": "é", "c": None}]}) == '{"a":[1,{"c":null,"d":"é"}],"b":1}'
    assert args_hash({"x": 1, "y": "z"}) == hashlib.sha256(b'{"x":1,"y":"z"}').hexdigest()
    assert args_hash({"y": "z", "x": 1}) == args_hash({"x": 1, "y": "z"})
    with pytest.raises(ValueError):
        canonical_json({"n": float("nan")})  # not JSON: refused, not hashed as something else


def _chain(n: int) -> list[tuple[str, dict]]:
    items, prev = [], GENESIS
    for seq in range(1, n + 1):
        key, record = seal({"kind": "tool_call", "tool_name": f"t{seq}"}, seq, prev)
        items.append((key, record))
        prev = str(record["hash"])
    return [*items, (HEAD_KEY, {"seq": n, "hash": prev, "key": items[-1][0]})]


def test_sealed_records_link_to_genesis_and_each_other():
    items = _chain(3)
    first, second = items[0][1], items[1][1]
    assert first["prev_hash"] == GENESIS and second["prev_hash"] == first["hash"]
    assert first["hash"] == record_hash(first) and items[0][0] == f"00000001-{first['hash'][:12]}"
    assert verify_chain(items) is None
    assert verify_chain(reversed(items)) is None  # the store's order does not matter: keys do


def test_an_edited_record_is_named():
    items = _chain(4)
    key, record = items[1]
    items[1] = (key, {**record, "tool_name": "other"})
    problem = verify_chain(items)
    assert problem is not None and problem.key == key and "edited" in problem.what


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link():
    items = _chain(4)
    key, record = items[1]
    forged = {**record, "tool_name": "other"}
    forged["hash"] = record_hash(forged)
    items[1] = (key, forged)
    problem = verify_chain(items)
    assert problem is not None and problem.key in (key, items[2][0])


def test_a_deleted_record_is_named_missing():
    items = _chain(4)
    del items[1]
    problem = verify_chain(items)
    assert problem is not None and problem.key == "00000002" and "missing" in problem.what


def test_a_deleted_last_record_is_caught_by_the_head():
    items = _chain(3)
    last_key = items[2][0]
    del items[2]
    problem = verify_chain(items)
    assert problem is not None and problem.key == last_key and "missing" in problem.what


def test_swapped_records_are_reported_reordered():
    items = _chain(4)
    (k1, r1), (k2, r2) = items[1], items[2]
    items[1], items[2] = (k1, r2), (k2, r1)
    problem = verify_chain(items)
    assert problem is not None and problem.key == k1


def test_a_fork_two_records_for_one_number_is_reported():
    items = _chain(3)
    key, extra = seal({"kind": "tool_call", "tool_name": "racer"}, 2, items[0][1]["hash"])
    problem = verify_chain([*items, (key, extra)])
    assert problem is not None and "fork" in problem.what


class YieldingStore(InMemoryStore):
    """The server's store does I/O: each call gives the event loop to others, as parallel tool calls do."""

    async def aget(self, *args, **kwargs):
        await asyncio.sleep(0)
        return await super().aget(*args, **kwargs)

    async def aput(self, *args, **kwargs):
        await asyncio.sleep(0)
        return await super().aput(*args, **kwargs)


def test_concurrent_appends_to_one_thread_make_one_chain():
    store = YieldingStore()

    async def go():
        trail = AuditTrail(store, "thread-1")
        await asyncio.gather(*(trail.append({"kind": "tool_call", "tool_name": f"t{i}"}) for i in range(20)))

    asyncio.run(go())
    items = [(i.key, i.value) for i in store.search(audit_namespace("thread-1"), limit=100)]
    assert len(items) == 21 and verify_chain(items) is None
    assert sorted({value["seq"] for key, value in items if key != HEAD_KEY}) == list(range(1, 21))


def test_the_namespace_is_under_users_and_its_owner_the_layout_aegras_store_api_keeps():
    # Aegra's store API files what a caller names under ("users", <identity>) unless it starts there;
    # the graph writes beside the API, so the trail must already live there (anonymous without sign-in).
    assert audit_namespace("t.1") == ("users", "anonymous", "sitewalk", "audit", "t_1")
    assert audit_namespace("t1", "ana") == ("users", "ana", "sitewalk", "audit", "t1")
    assert namespace_owner(audit_namespace("t1", "ana")) == "ana"
    assert namespace_owner(("ana", "sitewalk")) is None and namespace_owner(("users",)) is None


class SharedStore(InMemoryStore):
    """One store used by two "servers" (two threads, each with its own event loop): every call is atomic
    (a threading lock, as a database statement is) and gives the other writer time to run in between."""

    def __init__(self) -> None:
        super().__init__()
        self._atomic = threading.Lock()

    async def _io(self, call):
        await asyncio.sleep(random.uniform(0, 0.002))
        with self._atomic:
            return call()

    async def aget(self, *args, **kwargs):
        return await self._io(lambda: self.get(*args, **kwargs))

    async def aput(self, *args, **kwargs):
        return await self._io(lambda: self.put(*args, **kwargs))

    async def asearch(self, *args, **kwargs):
        return await self._io(lambda: self.search(*args, **kwargs))

    async def adelete(self, *args, **kwargs):
        return await self._io(lambda: self.delete(*args, **kwargs))


def _two_servers_append(store: InMemoryStore, each: int) -> None:
    """Two appenders on one thread's chain that share nothing but the store (not the in-process lock)."""
    def server(name: str) -> None:
        async def go():
            trail = AuditTrail(store, "thread-2")
            for i in range(each):
                await trail.append({"kind": "tool_call", "tool_name": f"{name}{i}"})
        asyncio.run(go())

    workers = [threading.Thread(target=server, args=(name,)) for name in ("a", "b")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)


def test_two_servers_appending_on_one_store_make_one_chain():
    store = SharedStore()
    _two_servers_append(store, 15)
    items = [(i.key, i.value) for i in store.search(audit_namespace("thread-2"), limit=100)]
    assert verify_chain(items) is None and len(items) == 31
    names = sorted(value["tool_name"] for key, value in items if key != HEAD_KEY)
    assert names == sorted(f"{n}{i}" for n in "ab" for i in range(15))
    assert store.search(lock_namespace(audit_namespace("thread-2"))) == []  # every claim released


def test_without_the_store_lock_two_servers_fork_the_chain(monkeypatch):
    @asynccontextmanager
    async def no_lock(store, namespace):
        yield

    monkeypatch.setattr(trail_module, "store_lock", no_lock)
    store = SharedStore()
    _two_servers_append(store, 15)
    items = [(i.key, i.value) for i in store.search(audit_namespace("thread-2"), limit=100)]
    problem = verify_chain(items)
    assert problem is not None  # the test above can fail: the store lock is what keeps the chain whole


def test_a_claim_left_by_a_dead_writer_expires_after_its_lease():
    store = InMemoryStore()
    namespace = audit_namespace("thread-3")
    store.put(lock_namespace(namespace), "dead-writer", {"at": time.time() - LEASE_SECONDS - 1})

    async def go():
        return await AuditTrail(store, "thread-3").append({"kind": "tool_call"})

    assert asyncio.run(go())["seq"] == 1
    assert store.search(lock_namespace(namespace)) == []


def test_a_live_claim_held_for_every_attempt_fails_the_append_with_a_typed_error(monkeypatch):
    monkeypatch.setattr(store_lock_module, "MAX_ATTEMPTS", 3)
    store = InMemoryStore()
    namespace = audit_namespace("thread-4")
    store.put(lock_namespace(namespace), "other-writer", {"at": time.time() + 60})

    async def go():
        await AuditTrail(store, "thread-4").append({"kind": "tool_call"})

    with pytest.raises(AuditLockTimeout):
        asyncio.run(go())
    assert [i.key for i in store.search(namespace)] == []  # nothing written


def test_the_committed_head_catches_a_cut_tail_and_a_resealed_chain():
    from sitewalk_shared.contracts.audit import check_committed, committed_head, later_head, seal

    chain, prev = [], "0" * 64
    for seq in (1, 2, 3):
        key, record = seal({"kind": "tool_call", "outcome": "succeeded"}, seq, prev)
        chain.append((key, record))
        prev = record["hash"]
    head = committed_head(chain[-1][1])
    assert check_committed(chain, head) is None and check_committed(chain, None) is None
    cut = check_committed(chain[:2], head)
    assert cut is not None and "committed record 3 but the chain ends at record 2" in cut.what
    _, resealed = seal({"kind": "tool_call", "outcome": "failed:denied"}, 3, chain[1][1]["hash"])
    edited = check_committed([*chain[:2], ("x", resealed)], head)
    assert edited is not None and edited.what.startswith("edited")
    # the state's reducer: a head never moves back (a fork's values, a client's update)
    assert later_head(head, committed_head(chain[0][1])) == head
    assert later_head(None, head) == head and later_head(head, None) == head
