"""Helpers of the audit tests on both servers (importable: test modules are not): a record's store key,
a chain re-sealed after an edit (what someone below the API could write), and every audit head the
thread's checkpoints committed (sitewalk_agent.audit.middleware commits one with each audited step)."""

from __future__ import annotations

from typing import Any

from langgraph_sdk import get_client

from sitewalk_shared.contracts.audit import STATE_HEAD, seal

__all__ = ["committed_heads", "record_key", "reseal"]


def record_key(record: dict[str, Any]) -> str:
    """The store key of a sealed record (`sitewalk_shared.contracts.audit`: `<seq:08d>-<hash12>`)."""
    return f"{record['seq']:08d}-{record['hash'][:12]}"


def reseal(records: list[dict[str, Any]], start: int) -> list[tuple[str, dict[str, Any]]]:
    """The chain from index `start` on, sealed again after an edit to records[start]: correct hashes."""
    sealed, prev = [], records[start - 1]["hash"]
    for record in records[start:]:
        fields = {k: v for k, v in record.items() if k not in ("seq", "prev_hash", "hash")}
        key, new = seal(fields, record["seq"], prev)
        sealed.append((key, new))
        prev = new["hash"]
    return sealed


async def committed_heads(url: str, thread_id: str, headers: dict[str, str] | None = None) -> list[Any]:
    """The audit head of every checkpoint in the thread's history (None where a checkpoint has none)."""
    client = get_client(url=url, headers=headers)
    try:
        history = await client.threads.get_history(thread_id, limit=1000)
    finally:
        await client.aclose()
    heads = []
    for state in history:
        values = state.get("values")
        heads.append(values.get(STATE_HEAD) if isinstance(values, dict) else None)
    return heads
