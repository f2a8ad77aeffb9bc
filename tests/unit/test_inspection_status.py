"""Where an inspection is, in the status line's and the list's words (sitewalk.inspection_status), from
states the real servers recorded (tests/unit/fixtures/history/*.json) and the failed state both servers
keep after a run that ended in error."""

from __future__ import annotations

from typing import Any

import pytest
from recorded import load_history

from sitewalk.inspection_status import (
    CANCELLED,
    DONE,
    RUNNING,
    Phase,
    failed,
    failure_reason,
    needs_newest_run,
    needs_state,
    status_of_state,
    status_of_thread,
)


def _entries(name: str) -> list[dict[str, Any]]:
    recorded = load_history(f"{name}.json")
    return recorded.get("all") or [entry for page in recorded["pages"] for entry in page]


def _waiting_on(name: str, kind: str) -> dict[str, Any]:
    """The first recorded step of `name` whose pending interrupts are all of this kind."""
    for entry in _entries(name):
        kinds = {i["value"]["type"] for task in entry.get("tasks") or [] for i in task.get("interrupts") or []}
        if kinds == {kind}:
            return entry
    raise AssertionError(f"no step of {name} waits on {kind}")


# The state after `script: fail` (a model call raising), as langgraph dev and Aegra both answer GET /state:
# the failed task keeps the exception's repr, no interrupt is pending, `next` still names the node.
FAILED_STATE: dict[str, Any] = {
    "values": {"messages": [], "inspection_id": "inspection-7"}, "next": ["model"], "interrupts": [],
    "tasks": [{"id": "6e0b", "name": "model", "error": "ScriptedModelFailure('the model provider did not answer "
               "(script: fail)')", "interrupts": [], "checkpoint": None, "state": None, "result": None}]}


@pytest.mark.parametrize(("recording", "kind", "words"), [
    ("review_decided", "tool_approval", "waiting for your review (3)"),
    ("site_walk", "question", "waiting for your answer"),
    ("confirm_fork", "ui_action_request", "waiting for your decision"),
    ("confirm_fork", "tool", "waiting for this device"),
])
def test_a_thread_that_waits_says_on_what(recording, kind, words):
    status = status_of_state(_waiting_on(recording, kind))
    assert status.phase is Phase.waiting and status.words == words and str(status) == words


def test_a_run_that_paused_is_waiting_even_when_the_thread_says_error():
    """A review still pending on a thread in `error` (a resume that failed) waits for the inspector."""
    waiting = _waiting_on("review_decided", "tool_approval")
    assert status_of_state(waiting, thread_status="error").words == "waiting for your review (3)"
    with_error = {**waiting, "tasks": [*waiting["tasks"], *FAILED_STATE["tasks"]]}
    assert status_of_state(with_error).words == "waiting for your review (3)"


def test_several_kinds_are_all_named_and_an_unknown_one_is_waiting_for_you():
    review = {"type": "tool_approval", "name": "create_work_order"}
    state = {"interrupts": [{"id": "a", "value": review}, {"id": "b", "value": {"type": "question"}},
                            {"id": "c", "value": {"type": "something_new"}}]}
    assert status_of_state(state).words == "waiting for your review (1) and your answer and you"


def test_a_failed_run_says_failed_with_the_reason_of_its_task():
    assert failure_reason(FAILED_STATE) == "ScriptedModelFailure: the model provider did not answer (script: fail)"
    status = status_of_state(FAILED_STATE)
    assert status.phase is Phase.failed and status.name == "failed"
    assert status.words == "failed: ScriptedModelFailure: the model provider did not answer (script: fail)"
    assert "finished" not in status.words and status is not DONE


def test_a_failure_without_a_reason_is_still_a_failure_and_a_long_reason_is_cut():
    assert status_of_state({"tasks": []}, thread_status="error").words == "failed: the run ended in error"
    assert failure_reason({"tasks": [{"error": "not a repr at all"}]}) == "not a repr at all"
    long = failed("x" * 500).words
    assert long.startswith("failed: xxx") and long.endswith("…") and len(long) == len("failed: ") + 200


def test_a_run_going_is_running_and_an_ended_one_done():
    ended = _entries("review_decided")[0]  # the newest step: the decisions ran, the agent answered
    assert ended["next"] == [] and status_of_state(ended) is DONE and DONE.words == "done"
    assert status_of_state(ended, run_active=True) is RUNNING
    assert status_of_state(ended, thread_status="busy") is RUNNING


REVIEW = {"id": "i1", "value": {"type": "tool_approval", "name": "create_work_order"}}


@pytest.mark.parametrize(("thread", "words", "read_state"), [
    ({"status": "busy", "interrupts": {}}, "running", False),
    ({"status": "idle", "interrupts": {}}, "done", False),
    ({"status": "interrupted", "interrupts": {"task": [REVIEW, {**REVIEW, "id": "i2"}]}},
     "waiting for your review (2)", False),  # langgraph dev lists the interrupts
    ({"status": "interrupted", "interrupts": None}, "waiting for you", True),  # Aegra does not: read the state
    ({"status": "error", "interrupts": {}}, "failed: the run ended in error", True),  # its reason is in the state
])
def test_a_listed_thread_says_what_the_listing_tells_and_asks_for_the_state_when_it_tells_too_little(
        thread, words, read_state):
    assert status_of_thread(thread).words == words
    assert needs_state(thread) is read_state


@pytest.mark.parametrize(("status", "run_status", "words"), [
    ("idle", "interrupted", "cancelled"),  # the inspector's Cancel (action=interrupt) stopped the newest run
    ("idle", "success", "done"),
    ("idle", None, "done"),  # no run read (none started, or unreadable)
    ("interrupted", "interrupted", "waiting for you"),  # Aegra: a run paused on interrupt() says interrupted too
    ("busy", "interrupted", "running"),
])
def test_an_idle_thread_whose_newest_run_was_cancelled_says_cancelled(status, run_status, words):
    thread = {"status": status, "interrupts": {}}
    assert needs_newest_run(thread) is (status == "idle")
    newest = None if run_status is None else {"run_id": "r1", "status": run_status}
    found = status_of_thread(thread, newest)
    assert found.words == words and (found is CANCELLED) is (words == "cancelled")


@pytest.mark.parametrize("error", ["CancelledError()", "asyncio.CancelledError()", "CancelledError: run cancelled"])
def test_a_run_cancelled_on_the_server_is_cancelled_not_failed(error):
    """langgraph dev keeps the inspector's Cancel (action=interrupt) as the task's error, the thread in `error`:
    the list said "failed: CancelledError()" although the status line said "cancelled"."""
    state = {"values": {}, "next": ["model"], "tasks": [{"name": "model", "error": error, "interrupts": []}],
             "interrupts": []}
    assert status_of_state(state, thread_status="error") is CANCELLED
    assert status_of_state({**state, "tasks": [{"name": "model", "error": "ValueError('CancelledError')"}]},
                           thread_status="error").words == "failed: ValueError: CancelledError"
