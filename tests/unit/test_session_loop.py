"""The run loop and the session that composes the parts, with a fake transport."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    HISTORY,
    INTERRUPT,
    RUNS,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    counted_registry,
    finished_run,
    paused_run,
    waiting_state,
)
from memory_storage import MemoryStore
from sessions_for_tests import resumes, session_on, thread_server

from sitewalk.headless import HeadlessToolRegistry
from sitewalk.headless.delivery import AnswerBook, AuditLog
from sitewalk.session.loop import MAX_RESUMES

CHECKPOINT: dict[str, Any] = {
    "checkpoint": {"checkpoint_id": "c1"}, "parent_checkpoint": None, "metadata": {"source": "input"},
    "next": [], "values": {"messages": []}, "tasks": [], "created_at": "2026-12-03T09:00:00Z"}


def server(*runs: Any) -> FakeTransport:
    return thread_server(*runs).on("POST", HISTORY, (200, [CHECKPOINT]))


def test_a_start_answers_the_tool_from_the_stream_resumes_once_and_shows_the_timeline():
    registry, runs = counted_registry()
    fake = server(paused_run(), finished_run())
    view = RecordingView()
    audit = MemoryStore()
    session, _ = session_on(fake, registry, view, audit=AuditLog(audit))
    asyncio.run(session.start("inspection-42", note="script: x"))
    start, _ = fake.sent("POST", f"{RUNS}/stream")
    assert start.json["input"]["messages"][0]["content"] == "Start inspection inspection-42\nscript: x"
    assert start.json["input"]["client_tools"] == registry.manifest()
    [resume] = resumes(fake)
    assert list(resume) == ["int-1"] and resume["int-1"]["call_1"]["result"]["site"] == "Pier 4"
    assert len(runs) == 1 and fake.sent("GET", STATE) == []  # the interrupt came with the stream
    assert session.thread_id == THREAD_ID and [s.id for s in view.checkpoints.steps] == ["c1"]
    assert "The draft says Pier 4." in view.texts.values()
    assert asyncio.run(AuditLog(audit).get(THREAD_ID, "call_1"))["ok"] is True  # logged once delivered


def test_cancel_while_the_tool_runs_sends_no_answer_and_cancels_the_running_run():
    started = asyncio.Event()

    async def hangs(_args: Any) -> Any:
        started.set()
        await asyncio.Event().wait()

    registry = HeadlessToolRegistry(timeout_s=60)
    registry.register("read_local_draft", hangs)
    fake = (server(paused_run())
            .on("GET", RUNS, (200, [{"run_id": "r1", "status": "running"}]))
            .on("POST", f"{RUNS}/r1/cancel", (200, None)))
    view = RecordingView()
    session, _ = session_on(fake, registry, view)

    async def go():
        run = asyncio.ensure_future(session.start("inspection-42"))
        await asyncio.wait_for(started.wait(), 5)
        await session.cancel()
        await asyncio.wait_for(run, 5)

    asyncio.run(go())
    assert resumes(fake) == []  # nothing left the device
    assert session.cancelled and fake.sent("GET", RUNS)[0].query == "limit=10&status=running"
    assert len(fake.sent("POST", f"{RUNS}/r1/cancel")) == 1
    assert view.states("read_local_draft")[-1] == "failed"


def test_a_cancel_before_the_thread_exists_sends_nothing_to_the_server():
    fake = FakeTransport()
    session, _ = session_on(fake)
    asyncio.run(session.cancel())
    assert fake.requests == [] and session.cancelled


def test_a_rejoin_sends_the_answer_recorded_before_the_reload_without_running_the_tool():
    registry, runs = counted_registry()
    book = AnswerBook(MemoryStore())
    recorded = {"ok": True, "protocol": 1, "tool": "read_local_draft", "tool_call_id": "call_1",
                "result": {"site": "Recorded"}}
    fake = server(finished_run()).on("GET", STATE, (200, waiting_state(INTERRUPT)), (200, waiting_state()))
    session, _ = session_on(fake, registry, book=book)

    async def go():
        await book.record(THREAD_ID, "int-1", recorded)
        return await session.rejoin(THREAD_ID), await session.rejoin(THREAD_ID), await book.get(THREAD_ID, "call_1")

    waited, again, record = asyncio.run(go())
    assert waited is True and again is False and runs == []
    assert resumes(fake) == [{"int-1": {"call_1": recorded}}]  # once: the second rejoin finds nothing pending
    assert record is not None and record["delivered"] is True


def test_a_run_that_keeps_interrupting_is_resumed_at_most_max_resumes_times():
    registry, runs = counted_registry()
    fake = server(paused_run())  # every resume pauses on the same tool call again
    asyncio.run(session_on(fake, registry)[0].start("inspection-42"))
    assert len(resumes(fake)) == MAX_RESUMES and len(runs) == 1  # the same call: its recorded envelope
