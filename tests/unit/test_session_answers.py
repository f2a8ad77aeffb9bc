"""HeadlessAnswers with a fake transport: each call runs once, kept in the book first, logged when delivered."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fake_agent_server import (
    BASE_URL,
    CALL,
    INTERRUPT,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    counted_registry,
    waiting_state,
)
from memory_storage import MemoryStore

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless.delivery import AnswerBook, AuditLog
from sitewalk.session.answers import HeadlessAnswers
from sitewalk.session.calls import CallBoard
from sitewalk.session.cancel import Cancellation
from sitewalk.session.thread import Thread
from sitewalk_shared.contracts.tools import READ_LOCAL_DRAFT


def answers_for(registry: Any, *, fake: FakeTransport | None = None, cancellation: Cancellation | None = None,
                **kwargs: Any) -> tuple[HeadlessAnswers, RecordingView]:
    view = RecordingView()
    client = AgentServerClient(BASE_URL, transport=fake or FakeTransport())
    answers = HeadlessAnswers(client, Thread(THREAD_ID), registry, CallBoard(view), cancellation or Cancellation(),
                              **kwargs)
    return answers, view


def test_a_pending_tool_is_run_once_kept_in_the_book_first_and_answered_keyed_by_interrupt_and_call():
    registry, runs = counted_registry()
    book = AnswerBook(MemoryStore())
    answers, view = answers_for(registry, book=book)

    async def go():
        first = await answers.pending(waiting_state(INTERRUPT))
        again = await answers.pending(waiting_state(INTERRUPT))  # the same interrupt delivered again
        return first, again, await book.get(THREAD_ID, CALL["id"])

    first, again, record = asyncio.run(go())
    envelope = first["int-1"]["call_1"]
    assert envelope["ok"] is True and envelope["result"]["site"] == "Pier 4"
    assert again == first and len(runs) == 1  # the recorded envelope, not a second run
    assert record == {"interrupt_id": "int-1", "envelope": envelope, "delivered": False}
    assert view.states("read_local_draft") == ["running", "succeeded", "succeeded"]


def test_a_call_answered_before_a_reload_gets_the_recorded_envelope_without_running_the_tool():
    registry, runs = counted_registry()
    book = AnswerBook(MemoryStore())
    recorded = {"ok": True, "protocol": 1, "tool": "read_local_draft", "tool_call_id": "call_1",
                "result": {"inspection_id": "inspection-42", "site": "Recorded before the reload"}}
    fake = FakeTransport().on("GET", STATE, (200, waiting_state(INTERRUPT)))
    answers, _ = answers_for(registry, fake=fake, book=book)

    async def go():
        await book.record(THREAD_ID, "int-1", recorded)
        return await answers.pending()  # no state given: the server's is read

    assert asyncio.run(go()) == {"int-1": {"call_1": recorded}}
    assert runs == [] and len(fake.sent("GET", STATE)) == 1


def test_a_contract_that_differs_is_answered_contract_mismatch_once_without_running_the_tool():
    registry, runs = counted_registry()
    seen: list[Any] = []
    answers, _ = answers_for(registry, on_mismatch=seen.append)
    other = {"id": "int-2", "value": {**INTERRUPT["value"], "contract": {"protocol": "sitewalk.headless/1",
                                                                         "digest": "0000000000000000"}}}

    async def go():
        return await answers.pending(waiting_state(other)), await answers.pending(waiting_state(other))

    first, _ = asyncio.run(go())
    assert first["int-2"]["call_1"]["error"]["code"] == "contract_mismatch" and runs == []
    [mismatch] = seen
    assert (mismatch.server_digest, mismatch.client_digest) == ("0000000000000000", READ_LOCAL_DRAFT.digest)


def test_interrupts_that_are_not_headless_tools_are_left_to_other_parts():
    registry, runs = counted_registry()
    answers, _ = answers_for(registry)
    decision = {"id": "int-9", "value": {"type": "ui_action_request", "identity": {}}}
    assert asyncio.run(answers.pending(waiting_state(decision))) == {} and runs == []


def test_delivered_answers_are_marked_in_the_book_and_logged_as_what_left_the_device():
    registry, _ = counted_registry()
    book, audit_store = AnswerBook(MemoryStore()), MemoryStore()
    answers, _ = answers_for(registry, book=book, audit=AuditLog(audit_store, clock=lambda: "2026-12-03T09:00:00Z"))

    async def go():
        sent = await answers.pending(waiting_state(INTERRUPT))
        await answers.delivered(sent)
        return await book.get(THREAD_ID, "call_1"), await AuditLog(audit_store).get(THREAD_ID, "call_1")

    record, entry = asyncio.run(go())
    assert record is not None and record["delivered"] is True
    assert entry == {"thread_id": THREAD_ID, "tool": "read_local_draft", "tool_call_id": "call_1", "ok": True,
                     "fields": sorted(json.loads(json.dumps(record["envelope"]["result"]))), "error_code": None,
                     "sent_at": "2026-12-03T09:00:00Z"}


def test_a_cancel_while_the_tool_runs_answers_nothing_and_records_nothing():
    from sitewalk.headless import HeadlessToolRegistry

    started = asyncio.Event()

    async def hangs(_args: Any) -> Any:
        started.set()
        await asyncio.Event().wait()  # a purpose dialog nobody answers

    registry = HeadlessToolRegistry(timeout_s=60)
    registry.register("read_local_draft", hangs)
    cancellation = Cancellation()
    book = AnswerBook(MemoryStore())
    answers, view = answers_for(registry, cancellation=cancellation, book=book)

    async def go():
        pending = asyncio.ensure_future(answers.pending(waiting_state(INTERRUPT)))
        await asyncio.wait_for(started.wait(), 5)
        cancellation.cancel()
        return await asyncio.wait_for(pending, 5), await book.get(THREAD_ID, "call_1")

    sent, record = asyncio.run(go())
    assert sent == {} and record is None and answers.outcomes == {}
    assert view.events[-1] == ("tool_call", "read_local_draft", "failed",
                               "cancelled: the inspector cancelled the run")
