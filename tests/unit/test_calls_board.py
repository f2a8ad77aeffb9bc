"""The session's CallBoard walks each call through the lifecycle and shows the states it reaches."""

from __future__ import annotations

import asyncio

from fake_agent_server import BASE_URL, RUNS, THREAD_ID, FakeTransport, RecordingView, fixture

from sitewalk.agentserver import AgentServerClient
from sitewalk.calls.lifecycle import CallStatus as S
from sitewalk.screen_feed import ScreenFeed
from sitewalk.session.calls import CallBoard
from sitewalk.session.stream import RunStream
from sitewalk.session.thread import Thread

OK = {"ok": True, "result": {"site": "Pier 4"}}
DENIED = {"ok": False, "error": {"code": "permission_denied", "message": "no"}}


def board() -> tuple[CallBoard, RecordingView]:
    view = RecordingView()
    return CallBoard(view), view


def test_a_headless_call_answered_here_walks_the_unreviewed_path():
    calls, view = board()
    calls.show("c1", "read_local_draft", S.COLLECTING_ARGS, '{"inspection')
    calls.show("c1", "read_local_draft", S.COLLECTING_ARGS, '{"inspection_id":"x"}')
    calls.show("c1", "read_local_draft", S.ARGS_READY, '{"inspection_id":"x"}')
    calls.show("c1", "read_local_draft", S.RUNNING)
    calls.ended("c1", "read_local_draft", OK)
    assert view.states("read_local_draft") == ["collecting_args", "collecting_args", "args_ready", "running",
                                               "succeeded"]
    assert calls.lifecycles["c1"].path == [S.COLLECTING_ARGS, S.ARGS_READY, S.VALIDATED, S.REVIEW_NOT_REQUIRED,
                                           S.RUNNING, S.SUCCEEDED]


def test_the_growing_arguments_are_shown_with_the_state():
    calls, view = board()
    calls.show("c1", "t", S.COLLECTING_ARGS, '{"a":')
    calls.show("c1", "t", S.COLLECTING_ARGS, '{"a":1}')
    assert [e[3] for e in view.events if e[0] == "tool_call"] == ['{"a":', '{"a":1}']


def test_a_replayed_fragment_does_not_move_a_finished_call_back():
    calls, view = board()
    calls.ended("c1", "t", OK)
    assert calls.show("c1", "t", S.COLLECTING_ARGS, "{") is False
    assert view.states("t") == ["succeeded"] and calls.status("c1") is S.SUCCEEDED


def test_a_failed_answer_goes_through_running_not_bad_arguments():
    calls, view = board()
    calls.show("c1", "get_current_location", S.ARGS_READY)
    calls.ended("c1", "get_current_location", DENIED)
    assert view.states("get_current_location")[-1] == "failed"
    assert S.RUNNING in calls.lifecycles["c1"].path
    assert [e[3] for e in view.events][-1] == "permission_denied: no"


def test_a_reviewed_call_keeps_its_review_route_and_a_rejected_one_stays_rejected():
    calls, view = board()
    for state in (S.ARGS_READY, S.VALIDATED, S.REVIEW_REQUIRED, S.APPROVED):
        calls.show("w1", "create_work_order", state)
    calls.settle([{"type": "tool", "tool_call_id": "w1", "name": "create_work_order", "content": "{}"}])
    assert calls.lifecycles["w1"].path[-3:] == [S.APPROVED, S.RUNNING, S.SUCCEEDED]
    for state in (S.ARGS_READY, S.VALIDATED, S.REVIEW_REQUIRED, S.REJECTED):
        calls.show("w2", "create_work_order", state)
    calls.settle([{"type": "tool", "tool_call_id": "w2", "name": "create_work_order", "status": "error",
                   "content": "rejected by the inspector"}])
    assert calls.status("w2") is S.REJECTED and view.states("create_work_order")[-1] == "rejected"


def test_a_call_learned_late_from_the_state_shows_only_its_end():
    calls, view = board()
    calls.settle([{"type": "tool", "tool_call_id": "c9", "name": "render_ui", "content": "{}"}])
    assert view.states("render_ui") == ["succeeded"]
    assert calls.lifecycles["c9"].path[-2:] == [S.RUNNING, S.SUCCEEDED]


def test_a_recorded_parallel_run_shows_each_call_growing_then_ready():
    fake = FakeTransport().on("POST", f"{RUNS}/stream", fixture("calls_parallel_runs.sse"))
    view = RecordingView()
    calls = CallBoard(view)
    client = AgentServerClient(BASE_URL, transport=fake)

    async def _no_wait(attempt: int) -> None:
        pass

    asyncio.run(RunStream(client, Thread(THREAD_ID), view, ScreenFeed(view), calls, _no_wait).run(input={}))
    for tool in ("read_local_draft", "get_current_location"):
        states = view.states(tool)
        assert states[0] == "collecting_args" and states[-1] == "args_ready" and states.count("args_ready") == 1
    details = [e[3] for e in view.events if e[0] == "tool_call" and e[1] == "get_current_location"]
    assert details[-1] == '{"purpose":"Record where inspection inspection-42 is carried out.","timeout_ms":10000}'
    assert all(details[i + 1].startswith(details[i]) for i in range(len(details) - 1))  # growing, never mixed


def test_the_view_shows_a_state_by_its_label_and_arguments_ready_never_reads_done():
    from sitewalk.ui.render import render_template

    ready = render_template("tool_call.j2", name="read_local_draft", state="args_ready", detail="{}")
    assert "arguments ready, not run" in ready and "done" not in ready and 'title="args_ready"' in ready
    assert ">done<" in render_template("tool_call.j2", name="t", state=S.SUCCEEDED, detail="")
    assert ">mystery<" in render_template("tool_call.j2", name="t", state="mystery", detail="")
