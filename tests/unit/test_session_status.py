"""After each run the session says where the inspection is (session/status_report.py, through the run loop):
from the thread's state, never "finished" for a run that paused or failed."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import HISTORY, STATE, THREAD_ID, counted_registry, finished_run, paused_run, sse, waiting_state
from sessions_for_tests import session_on, thread_server

from sitewalk.base.server_errors import StreamError
from sitewalk.inspection_status import InspectionStatus

FAILED = {**waiting_state(values={"messages": [], "inspection_id": "inspection-42"}), "next": ["model"],
          "tasks": [{"id": "t", "name": "model", "error": "ScriptedModelFailure('the model provider did not answer')",
                     "interrupts": []}]}
REVIEWS = [{"id": f"r{n}", "value": {"type": "tool_approval", "name": "create_work_order", "tool_call_id": f"c{n}",
                                     "args": {}, "args_revision": 1, "args_hash": "h"}} for n in range(3)]
ERROR_EVENT = sse(("metadata", {"run_id": "r2"}), ("error", {"error": "ScriptedModelFailure",
                                                             "message": "ScriptedModelFailure: execution failed"}))


def _started(fake: Any) -> tuple[list[tuple[str, InspectionStatus]], Exception | None]:
    told: list[tuple[str, InspectionStatus]] = []
    session, _ = session_on(fake.on("POST", HISTORY, (200, [])), counted_registry()[0],
                            on_status=lambda inspection, status: told.append((inspection, status)))
    try:
        asyncio.run(session.start("inspection-42"))
    except StreamError as error:
        return told, error
    return told, None


def test_a_run_that_fails_after_a_device_answer_says_failed_with_the_reason_the_state_keeps():
    """Aegra's stream says only "execution failed": the reason comes from the failed task in the state."""
    told, error = _started(thread_server(paused_run(), ERROR_EVENT).on("GET", STATE, (200, FAILED)))
    assert isinstance(error, StreamError)  # still raised: callers that care (a review's refusal) see it
    [(inspection, status)] = told
    assert inspection == "inspection-42" and status.name == "failed"
    assert status.words == "failed: ScriptedModelFailure: the model provider did not answer"


def test_a_failure_the_state_cannot_explain_is_said_with_the_streams_reason_never_as_done():
    told, _ = _started(thread_server(paused_run(), ERROR_EVENT).on("GET", STATE, (200, waiting_state())))
    assert [s.words for _, s in told] == ["failed: ScriptedModelFailure: ScriptedModelFailure: execution failed"]
    told, _ = _started(thread_server(paused_run(), ERROR_EVENT).on("GET", STATE, (503, {"detail": "down"})))
    assert [s.name for _, s in told] == ["failed"]


def test_a_run_that_pauses_on_reviews_says_how_many_wait():
    paused_on_reviews = paused_run("r1", tuple(REVIEWS))
    told, error = _started(thread_server(paused_on_reviews).on("GET", STATE, (200, waiting_state(*REVIEWS))))
    assert error is None and [s.words for _, s in told] == ["waiting for your review (3)"]


def test_a_reopened_inspection_that_ended_says_done_though_nothing_ran():
    told: list[tuple[str, InspectionStatus]] = []
    fake = thread_server().on("GET", STATE, (200, waiting_state()))
    fake.on("GET", f"/threads/{THREAD_ID}/runs", (200, [])).on("POST", HISTORY, (200, []))
    session, _ = session_on(fake, counted_registry()[0], on_status=lambda i, s: told.append((i, s)))
    asyncio.run(session.reopen(THREAD_ID))
    assert [s.words for _, s in told] == ["done"]
    assert fake.sent("POST", f"/threads/{THREAD_ID}/runs/stream") == []


def test_no_status_is_read_without_anyone_to_tell():
    fake = thread_server(paused_run(), finished_run()).on("POST", HISTORY, (200, []))
    session, _ = session_on(fake, counted_registry()[0])
    asyncio.run(session.start("inspection-42"))
    assert fake.sent("GET", STATE) == []


def test_a_reopened_inspection_whose_newest_run_was_cancelled_says_cancelled_not_done():
    """A server that leaves a cancelled thread idle (Aegra) says the cancel only in the newest run's status:
    the status line reads it, as the list does, and says "cancelled", never "done"."""
    told: list[tuple[str, InspectionStatus]] = []
    fake = thread_server().on("GET", STATE, (200, waiting_state()))
    fake.on("GET", f"/threads/{THREAD_ID}/runs", (200, []), (200, [{"run_id": "r1", "status": "interrupted"}]))
    session, _ = session_on(fake.on("POST", HISTORY, (200, [])), counted_registry()[0],
                            on_status=lambda i, s: told.append((i, s)))
    asyncio.run(session.reopen(THREAD_ID))
    assert [s.words for _, s in told] == ["cancelled"]
    newest = fake.sent("GET", f"/threads/{THREAD_ID}/runs")[-1]
    assert newest.query == "limit=1"  # the newest run, whatever its status
