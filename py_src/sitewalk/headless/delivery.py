"""Deciding what to send for a headless-tool interrupt: the contract handshake and exactly-once answers.

Contract handshake, client side: the agent's interrupt carries `contract: {protocol, digest}` of the
tool as the server knows it. When that differs from the contract this client was built with, the
client does not run the tool: it answers with a `contract_mismatch` envelope naming both digests.
Server side, the graph compares the digests the client sent with the run (`client_tools`) and ends
the call with the same error itself; `server_mismatches` finds those in the thread's state so the
app can show both directions the same way.

Exactly once: `AnswerBook` keeps every envelope in the device's store *before* it is sent, keyed
by thread and tool_call_id (ids are unique within a thread). A call that comes again — the same
interrupt delivered twice, or a reload that finds the server still waiting — gets the recorded
envelope again; the tool is never run twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from sitewalk_shared.contracts.envelope import ErrorCode, error_result
from sitewalk_shared.contracts.headless_wire import Envelope, FailureEnvelope, parse_headless_interrupt
from sitewalk_shared.contracts.tools import PROTOCOL_VERSION, TOOL_CONTRACTS, ToolContract

from .local_draft import AsyncKeyValueStore

__all__ = ["AnswerBook", "AuditLog", "ContractMismatch", "client_mismatch", "mismatch_of", "server_mismatches"]


@dataclass(frozen=True)
class ContractMismatch:
    """One tool whose contract differs between the agent and this client."""

    tool: str
    tool_call_id: str
    server_digest: str
    client_digest: str
    server_protocol: str = PROTOCOL_VERSION
    client_protocol: str = PROTOCOL_VERSION
    found_by: str = "client"  # client: the interrupt's digest; server: the graph checked client_tools


def client_mismatch(interrupt_value: object, contracts: dict[str, ToolContract] = TOOL_CONTRACTS,
                    implemented: set[str] | None = None) -> FailureEnvelope | None:
    """The `contract_mismatch` envelope to answer instead of running the tool, or None when they agree.

    Only tools this client implements are checked (a missing one is `not_implemented`, the
    registry's answer). An interrupt without a `contract` block (an older agent, or a graph written
    for the official SDK) is not a mismatch: there is nothing to compare.
    """
    request = parse_headless_interrupt(interrupt_value)
    if request is None:
        return None
    name = request.name
    if name not in contracts or (implemented is not None and name not in implemented):
        return None
    if request.contract is None:
        return None
    server_digest = request.contract["digest"]
    server_protocol = request.contract["protocol"] or PROTOCOL_VERSION
    client_digest = contracts[name].digest
    if server_digest in ("", client_digest) and server_protocol == PROTOCOL_VERSION:
        return None
    return error_result(
        name, request.tool_call_id, ErrorCode.contract_mismatch,
        f"this client implements another version of {name}: the agent's contract is {server_digest}, "
        f"this client's is {client_digest}; the tool was not run",
        server_digest=server_digest, client_digest=client_digest,
        server_protocol=server_protocol, client_protocol=PROTOCOL_VERSION, found_by="client")


def mismatch_of(envelope: object, found_by: str = "client") -> ContractMismatch | None:
    """The mismatch an envelope reports, or None when it is not a contract_mismatch failure."""
    if not isinstance(envelope, dict) or envelope.get("ok") is not False:
        return None
    error = envelope.get("error")
    if not isinstance(error, dict) or error.get("code") != ErrorCode.contract_mismatch.value:
        return None
    raw_detail = error.get("detail")
    detail: dict[str, object] = raw_detail if isinstance(raw_detail, dict) else {}
    return ContractMismatch(
        tool=str(envelope.get("tool") or ""), tool_call_id=str(envelope.get("tool_call_id") or ""),
        server_digest=str(detail.get("server_digest") or "?"), client_digest=str(detail.get("client_digest") or "?"),
        server_protocol=str(detail.get("server_protocol") or PROTOCOL_VERSION),
        client_protocol=str(detail.get("client_protocol") or PROTOCOL_VERSION),
        found_by=str(detail.get("found_by") or found_by))


def server_mismatches(state: object) -> list[ContractMismatch]:
    """contract_mismatch outcomes the agent recorded as tool messages in a thread state."""
    values = state.get("values") if isinstance(state, dict) else None
    messages = values.get("messages") if isinstance(values, dict) else None
    found: list[ContractMismatch] = []
    for message in messages or []:
        if not isinstance(message, dict) or message.get("type") != "tool" or message.get("status") != "error":
            continue
        content = message.get("content")
        try:
            body = json.loads(content) if isinstance(content, str) else content
        except ValueError:
            continue
        mismatch = mismatch_of(body, found_by="server")
        if mismatch is not None:
            found.append(mismatch)
    return found


class AnswerBook:
    """Envelopes this device answered, by thread and tool_call_id, kept in an async key-value store.

    Each record is the JSON text of {"interrupt_id", "envelope", "delivered"}. It is written before
    the envelope is sent (`record`), and marked delivered once the server took it (`delivered`).
    """

    PREFIX = "sitewalk:answered:"

    def __init__(self, store: AsyncKeyValueStore):
        self.store = store

    def key(self, thread_id: str, tool_call_id: str) -> str:
        return f"{self.PREFIX}{thread_id}:{tool_call_id}"

    async def get(self, thread_id: str, tool_call_id: str) -> dict[str, Any] | None:
        text = await self.store.get(self.key(thread_id, tool_call_id))
        if not text:
            return None
        try:
            record = json.loads(text)
        except ValueError:
            return None  # unreadable: treated as not answered (the server's state still decides)
        return record if isinstance(record, dict) and isinstance(record.get("envelope"), dict) else None

    async def record(self, thread_id: str, interrupt_id: str | None, envelope: Envelope) -> None:
        await self._put(thread_id, {"interrupt_id": interrupt_id, "envelope": envelope, "delivered": False})

    async def delivered(self, thread_id: str, tool_call_id: str) -> None:
        record = await self.get(thread_id, tool_call_id)
        if record is not None and not record.get("delivered"):
            await self._put(thread_id, {**record, "delivered": True})

    async def _put(self, thread_id: str, record: dict[str, Any]) -> None:
        call_id = str(record["envelope"].get("tool_call_id") or "")
        await self.store.set(self.key(thread_id, call_id), json.dumps(record, separators=(",", ":")))


class AuditLog:
    """What left the device: one record per delivered tool answer, in an async key-value store.

    Each record (JSON text under `sitewalk:audit:<thread>:<tool_call_id>`) names the thread, the
    tool, the tool_call_id, whether it was a result or an error, the top-level result fields sent
    and when, and the result's `source` when it has one (a typed position is "manual").
    Local-only fields never appear: they were dropped before the envelope was built.
    """

    PREFIX = "sitewalk:audit:"

    def __init__(self, store: AsyncKeyValueStore, clock: Any | None = None):
        self.store = store
        self._clock = clock or _utc_now

    def key(self, thread_id: str, tool_call_id: str) -> str:
        return f"{self.PREFIX}{thread_id}:{tool_call_id}"

    @staticmethod
    def entry(thread_id: str, envelope: Mapping[str, Any], at: str) -> dict[str, Any]:
        ok = envelope.get("ok") is True
        raw_result = envelope.get("result")
        result: dict[str, object] = raw_result if ok and isinstance(raw_result, dict) else {}
        entry = {"thread_id": thread_id, "tool": envelope.get("tool"), "tool_call_id": envelope.get("tool_call_id"),
                 "ok": ok, "fields": sorted(result) if ok else ["error"],
                 "error_code": None if ok else (envelope.get("error") or {}).get("code"), "sent_at": at}
        if isinstance(result.get("source"), str):  # e.g. a position the inspector typed: "manual"
            entry["source"] = result["source"]
        return entry

    async def sent(self, thread_id: str, envelope: Mapping[str, object]) -> dict[str, Any]:
        entry = self.entry(thread_id, envelope, self._clock())
        await self.store.set(self.key(thread_id, str(entry["tool_call_id"] or "")), json.dumps(entry))
        return entry

    async def get(self, thread_id: str, tool_call_id: str) -> dict[str, Any] | None:
        text = await self.store.get(self.key(thread_id, tool_call_id))
        try:
            return json.loads(text) if text else None
        except ValueError:
            return None


def _utc_now() -> str:
    from datetime import datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
