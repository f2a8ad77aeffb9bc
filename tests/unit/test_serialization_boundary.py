"""The serialization boundary: local-only result fields never leave the device; the audit log says what did."""

from __future__ import annotations

import asyncio
import json

from memory_storage import MemoryStore
from test_session_live import RecordingView

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.headless.delivery import AuditLog
from sitewalk.session import DeviceHooks, InspectionSession
from sitewalk_shared.contracts.tools import (
    READ_LOCAL_DRAFT,
    ReadLocalDraftResult,
    local_only_fields,
    on_device,
    outbound,
)

SECRET = "Owner mentioned a dispute with the neighbour; do not share."


def test_notes_are_marked_local_only_with_a_boolean_summary():
    assert local_only_fields(ReadLocalDraftResult) == {"notes": "has_notes"}
    schema = READ_LOCAL_DRAFT.result.model_json_schema()
    assert schema["properties"]["notes"]["local_only"] is True  # the agent's schema says so too


def test_outbound_drops_local_only_fields_and_sets_their_summary():
    with_notes = outbound(ReadLocalDraftResult(inspection_id="inspection-42", site="Pier 4", notes=SECRET))
    assert "notes" not in with_notes and with_notes["has_notes"] is True
    without = outbound(ReadLocalDraftResult(inspection_id="inspection-42", site="Pier 4"))
    assert "notes" not in without and without["has_notes"] is False


def test_a_result_checked_again_by_the_contract_does_not_grow_an_empty_notes_field():
    """The agent validates each answer against the contract and stores its dump: the notes must not come
    back there as the empty default (which would tell the model there are none, beside has_notes=True)."""
    sent = outbound(ReadLocalDraftResult(inspection_id="inspection-42", site="Pier 4", notes=SECRET))
    checked = READ_LOCAL_DRAFT.result.model_validate(sent).model_dump(mode="json")
    assert "notes" not in checked and checked["has_notes"] is True
    assert "notes" not in json.loads(READ_LOCAL_DRAFT.result.model_validate(sent).model_dump_json())


def test_on_device_keeps_the_local_only_fields():
    draft = ReadLocalDraftResult(inspection_id="inspection-42", site="Pier 4", notes=SECRET)
    assert on_device(draft)["notes"] == SECRET
    assert ReadLocalDraftResult.model_validate(on_device(draft)).notes == SECRET


def _registry(store):
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(MemoryStore(store)))
    return registry


def test_the_registrys_envelope_never_carries_the_notes():
    store = {draft_key("inspection-42"): json.dumps({"site": "Pier 4", "notes": SECRET})}
    envelope = asyncio.run(_registry(store).run({"id": "call-1", "name": "read_local_draft",
                                                 "args": {"inspection_id": "inspection-42"}}))
    assert envelope["ok"] and envelope["result"]["has_notes"] is True
    assert SECRET not in json.dumps(envelope)


def test_audit_entry_names_the_call_and_the_fields_sent():
    entry = AuditLog.entry("thread-1", {"ok": True, "tool": "read_local_draft", "tool_call_id": "call-1",
                                        "result": {"site": "x", "has_notes": True}}, "2026-12-02T00:00:00.000Z")
    assert entry == {"thread_id": "thread-1", "tool": "read_local_draft", "tool_call_id": "call-1", "ok": True,
                     "fields": ["has_notes", "site"], "error_code": None, "sent_at": "2026-12-02T00:00:00.000Z"}
    failed = AuditLog.entry("thread-1", {"ok": False, "tool": "t", "tool_call_id": "call-2",
                                         "error": {"code": "timeout", "message": "m"}}, "now")
    assert failed["fields"] == ["error"] and failed["error_code"] == "timeout"


def test_against_the_agent_the_notes_stay_on_the_device_and_the_audit_log_records_what_left(agent_server):
    store = {draft_key("inspection-42"): json.dumps({"site": "Pier 4", "risk": "medium", "notes": SECRET})}

    async def go():
        client = AgentServerClient(agent_server)
        audit_store = MemoryStore()
        session = InspectionSession(client, _registry(store), RecordingView(),
                                    device_hooks=DeviceHooks(audit=AuditLog(audit_store)))
        await session.start("inspection-42")
        state = await client.threads.get_state(session.thread_id)
        history = [c async for page in client.threads.iter_history(session.thread_id, page_size=50) for c in page]
        return session, state, history, audit_store

    session, state, history, audit_store = asyncio.run(go())
    assert SECRET not in json.dumps(state) and SECRET not in json.dumps(history)
    [tool_message] = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "read_local_draft"]
    sent = json.loads(tool_message["content"])["result"]
    assert sent["has_notes"] is True and "notes" not in sent  # not even empty, after the agent's own check
    [entry] = [json.loads(v) for v in audit_store.data.values()]
    assert entry["tool_call_id"] == tool_message["tool_call_id"] and entry["thread_id"] == session.thread_id
    assert entry["tool"] == "read_local_draft" and "notes" not in entry["fields"] and "has_notes" in entry["fields"]
