"""The audit chain itself, shared by the agent and the browser: canonical hashing, sealing a record
onto a chain, checking a chain, and where a thread's chain lives in the Agent Server's Store.

Pure functions over plain dicts, so they run anywhere (the agent, the CLI, the app in Pyodide,
tests) without a store. The agent appends (`sitewalk_agent.audit`); the app reads and checks.

Namespace: `("users", <owner>, "sitewalk", "audit", <thread_id>)`, the owner being the signed-in
identity or `anonymous` (`sitewalk_shared.contracts.store`: the one layout both servers' store APIs keep as
it is, and the only one `sitewalk_agent.auth` serves to the owner).

Why nothing here is hand-rolled beyond the chaining: every hash is `sitewalk_shared.contracts.canonical.sha256_of`,
sha256 over `json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)` encoded as
UTF-8 — the same canonical form anyone can rebuild with any JSON library. The only thing this
module adds is the link: each record names the hash of the one before it (`prev_hash`; the first
names `GENESIS`), and its own `hash` covers every other field, `prev_hash` included. Changing,
removing or reordering a record therefore breaks a link that `verify_chain` reports by key.

Keys are `<seq zero-padded to 8>-<first 12 hex of the hash>`: they sort in chain order, and two
writers that ever raced for the same sequence number leave two keys (a visible fork), never one
silently overwritten record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypedDict

from .canonical import sha256_of
from .store import user_namespace

__all__ = ["GENESIS", "HEAD_KEY", "NAMESPACE", "STATE_HEAD", "ChainHead", "ChainProblem", "audit_namespace",
           "check_committed", "committed_head", "later_head", "record_hash", "record_key", "seal",
           "verify_chain"]

NAMESPACE = ("sitewalk", "audit")

GENESIS = "0" * 64
"""The `prev_hash` of a thread's first record."""
HEAD_KEY = "head"
"""The store key of the thread's head pointer {seq, hash, key}: without it a deleted last record would not show."""
SEQ_WIDTH = 8
STATE_HEAD = "audit_head"
"""The state key where the graph also commits the chain's head {seq, hash} at each audited step: it is
checkpointed with the thread, where a client cannot lower it (`later_head`) or remove it without a trace,
so a tail cut off the store together with its head pointer still shows (`check_committed`)."""


class ChainHead(TypedDict):
    """A chain's last record as the thread's state commits it (`STATE_HEAD`)."""

    seq: int
    hash: str


def audit_namespace(thread_id: str, owner: str | None = None) -> tuple[str, ...]:
    """Where a thread's trail lives; `owner` is the authenticated identity (None without sign-in)."""
    safe = str(thread_id).replace(".", "_")  # namespace labels may not contain "."
    return user_namespace(owner, *NAMESPACE, safe)


def record_hash(record: Mapping[str, object]) -> str:
    """The hash of a record: every field but `hash` itself, `prev_hash` included."""
    return sha256_of({k: v for k, v in record.items() if k != "hash"})


def record_key(seq: int, digest: str) -> str:
    return f"{seq:0{SEQ_WIDTH}d}-{digest[:12]}"


def seal(fields: Mapping[str, object], seq: int, prev_hash: str) -> tuple[str, dict[str, object]]:
    """The record `fields` as the chain's entry number `seq` after `prev_hash`: (its key, the record)."""
    record = {**fields, "seq": seq, "prev_hash": prev_hash}
    digest = record["hash"] = record_hash(record)
    return record_key(seq, digest), record


@dataclass(frozen=True)
class ChainProblem:
    """The first thing wrong with a chain: the record's key (or the head) and what is wrong."""

    key: str
    what: str

    def __str__(self) -> str:
        return f"{self.key}: {self.what}"


def _key_seq(key: str) -> int:
    head = key.split("-", 1)[0]
    return int(head) if head.isdigit() else -1


def _check_record(key: str, record: Mapping[str, object], seq: int, prev: str) -> ChainProblem | None:
    if not isinstance(record, Mapping):
        return ChainProblem(key, "not a record (not a JSON object)")
    found = record.get("seq")
    if _key_seq(key) > seq:  # the keys skip a number: that record was removed
        return ChainProblem(f"{seq:0{SEQ_WIDTH}d}", f"missing: record {seq} is not in the store (next is {key})")
    if found != seq:
        return ChainProblem(key, f"reordered: record {seq} expected here, its seq says {found!r}")
    if record.get("prev_hash") != prev:
        return ChainProblem(key, "prev_hash does not match the previous record (a record before it is missing, "
                                 "edited or reordered)")
    if record.get("hash") != record_hash(record) or key != record_key(seq, str(record.get("hash"))):
        return ChainProblem(key, "edited: its hash does not match its content")
    return None


def _forks(keys: list[str]) -> ChainProblem | None:
    seen: dict[str, str] = {}
    for key in keys:
        seq = key.split("-", 1)[0]
        if seq in seen:
            return ChainProblem(key, f"fork: a second record with sequence number {_key_seq(key)} (also {seen[seq]})")
        seen[seq] = key
    return None


def verify_chain(items: Iterable[tuple[str, Mapping[str, object]]]) -> ChainProblem | None:
    """None when the chain (store items as (key, value), any order, the head included) is whole.

    Otherwise the first problem in chain order: an edited record, a missing one (a gap, or a tail
    cut off behind the head pointer), a reordered one, or a fork (two records for one number).
    """
    entries = dict(items)
    head = entries.pop(HEAD_KEY, None)
    keys = sorted(entries)
    problem = _forks(keys)
    if problem:
        return problem
    prev = GENESIS
    for seq, key in enumerate(keys, start=1):
        problem = _check_record(key, entries[key], seq, prev)
        if problem:
            return problem
        prev = str(entries[key]["hash"])
    return _check_head(head, len(keys), prev)


def _check_head(head: object, count: int, last_hash: str) -> ChainProblem | None:
    if head is None:
        return ChainProblem(HEAD_KEY, "the head pointer is missing") if count else None
    if not isinstance(head, Mapping) or head.get("seq") != count or head.get("hash") != last_hash:
        expected = head.get("seq") if isinstance(head, Mapping) else "?"
        return ChainProblem(str(head.get("key") if isinstance(head, Mapping) else HEAD_KEY),
                            f"missing: the head names record {expected} but the chain ends at record {count}")
    return None


def committed_head(record: Mapping[str, object]) -> ChainHead:
    """What the thread's state keeps of a stored record (one `seal` made): its sequence number and hash."""
    seq = record["seq"]
    if not isinstance(seq, int):
        raise TypeError(f"not a sealed record: its seq is {seq!r}")
    return {"seq": int(seq), "hash": str(record["hash"])}


def _seq_of(head: object) -> int:
    seq = head.get("seq") if isinstance(head, Mapping) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else -1


def later_head(current: object, new: object) -> object:
    """The state's reducer for STATE_HEAD: the head with the higher sequence number wins, so neither a
    fork from an older checkpoint's values nor a client's state update can move it back."""
    return new if _seq_of(new) >= _seq_of(current) else current


def check_committed(items: Iterable[tuple[str, Mapping[str, object]]], committed: object) -> ChainProblem | None:
    """None when the record the thread's checkpoints committed (`committed`: {seq, hash}, the latest of
    them) is in the chain as it was; otherwise what is wrong (a cut tail, a re-sealed record)."""
    if committed is None:
        return None
    records = {seq: v for k, v in items if k != HEAD_KEY and isinstance(v, Mapping)
               and isinstance(seq := v.get("seq"), int)}
    seq = _seq_of(committed)
    found = records.get(seq)
    last = max(records, default=0)
    if found is None:
        return ChainProblem(f"{seq:0{SEQ_WIDTH}d}", f"missing: the thread's checkpoints committed record {seq} "
                                                     f"but the chain ends at record {last}")
    if not isinstance(committed, Mapping) or found.get("hash") != committed.get("hash"):
        return ChainProblem(record_key(seq, str(found.get("hash"))),
                            f"edited: record {seq} is not the one the thread's checkpoints committed")
    return None
