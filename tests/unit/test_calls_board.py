"""The session's CallBoard walks each call through the lifecycle and shows the states it reaches."""

from __future__ import annotations

import asyncio

from fake_agent_server import RUNS, FakeTransport, RecordingView, fixture, sse
from sessions_for_tests import stream_on

from sitewalk.base.frames import FRAME_S
from sitewalk.calls.assembly import CallAssembler
from sitewalk.calls.lifecycle import CallStatus as S
from sitewalk.session.calls import CallBoard

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


def _streamed(stream_text: str, frame_s: float = FRAME_S) -> RecordingView:
    """The stream run through a session; shown once a frame (as in the app), or with 0 each event at once
    (as a slow stream would be: a frame passes between any two events)."""
    fake = FakeTransport().on("POST", f"{RUNS}/stream", stream_text)
    view = RecordingView()
    asyncio.run(stream_on(fake, view, frame_s=frame_s).run(input={}))
    return view


def _args_events(view: RecordingView) -> list[tuple[str, str, bool]]:
    return [(e[1], e[2], e[3]) for e in view.events if e[0] == "tool_args"]


def test_a_recorded_parallel_run_shows_each_call_growing_then_ready():
    view = _streamed(fixture("calls_parallel_runs.sse"), frame_s=0)
    for tool in ("read_local_draft", "get_current_location"):
        states = view.states(tool)
        assert states[0] == "collecting_args" and states[-1] == "args_ready" and states.count("args_ready") == 1
    fragments: dict[str, list[str]] = {}
    for call_id, text, replace in _args_events(view):
        assert not replace  # streamed fragments are deltas: the view appends them
        fragments.setdefault(call_id, []).append(text)
    whole = {call_id: "".join(parts) for call_id, parts in fragments.items()}
    assert '{"purpose":"Record where inspection inspection-42 is carried out.","timeout_ms":10000}' in whole.values()
    assert len(whole) == 2 and all(len(parts) > 1 for parts in fragments.values())  # each call, fragment by fragment
    # the view is given each character once: never the whole text again per fragment
    assert sum(len(t) for parts in fragments.values() for t in parts) == sum(len(w) for w in whole.values())


def test_a_delta_is_appended_and_a_whole_message_replaces():
    first = {"type": "AIMessageChunk", "id": "m1", "content": "", "tool_call_chunks": [
        {"index": 0, "id": "c1", "name": "read_local_draft", "args": '{"inspection_id":'}]}
    second = {"type": "AIMessageChunk", "id": "m1", "content": "", "chunk_position": "last",
              "tool_call_chunks": [{"index": 0, "args": '"inspection-42"}'}]}
    written = {"type": "ai", "id": "m2", "content": "", "tool_calls": [
        {"id": "c2", "name": "render_ui", "args": {"root": "card"}}]}  # a node wrote it whole: a snapshot
    stream = sse(("metadata", {"run_id": "r1"}), *(("messages", [m, {}]) for m in (first, second, written)))
    assert _args_events(_streamed(stream, frame_s=0)) == [
        ("c1", '{"inspection_id":', False), ("c1", '"inspection-42"}', False), ("c2", '{"root":"card"}', True)]
    # the first event is shown at once; what comes within the next frame (here one longer than the test)
    # reaches the view as one append per call
    assert _args_events(_streamed(stream, frame_s=60)) == [
        ("c1", '{"inspection_id":', False), ("c1", '"inspection-42"}', False), ("c2", '{"root":"card"}', True)]
    middle = {**second, "chunk_position": None, "tool_call_chunks": [{"index": 0, "args": '"inspection'}]}
    last = {**second, "tool_call_chunks": [{"index": 0, "args": '-42"}'}]}
    stream = sse(("metadata", {"run_id": "r1"}), *(("messages", [m, {}]) for m in (first, middle, last, written)))
    assert _args_events(_streamed(stream, frame_s=60)) == [
        ("c1", '{"inspection_id":', False), ("c1", '"inspection-42"}', False), ("c2", '{"root":"card"}', True)]


def test_a_stream_faster_than_a_frame_reaches_the_view_once_per_call_not_once_per_fragment():
    """The recorded parallel run arrives at once (a fake transport): each call's arguments reach the view in one
    append and its row is drawn once, ready; the words are all there."""
    view = _streamed(fixture("calls_parallel_runs.sse"), frame_s=60)  # a frame longer than the test
    args = _args_events(view)
    assert len(args) == 2 and not any(replace for _, _, replace in args)
    assert '{"purpose":"Record where inspection inspection-42 is carried out.","timeout_ms":10000}' in [
        text for _, text, _ in args]
    for tool in ("read_local_draft", "get_current_location"):
        assert view.states(tool) == ["args_ready"]


def test_the_board_passes_deltas_and_snapshots_and_nothing_for_an_empty_fragment():
    calls, view = board()
    assembler = CallAssembler()
    calls.args(assembler.delta((), "c1", '{"a":', "t"))
    calls.args(assembler.delta((), "c1", ""))
    calls.args(assembler.snapshot((), "c1", '{"a":2}'))
    calls.args(assembler.delta((), "c1", "}"))
    assert _args_events(view) == [("c1", '{"a":', False), ("c1", '{"a":2}', True), ("c1", "}", False)]


def test_the_view_shows_a_state_by_its_label_and_arguments_ready_never_reads_done():
    from sitewalk.ui.render import render_template

    ready = render_template("tool_call.j2", name="read_local_draft", state="args_ready", detail="{}")
    assert "arguments ready, not run" in ready and "done" not in ready and 'title="args_ready"' in ready
    assert ">done<" in render_template("tool_call.j2", name="t", state=S.SUCCEEDED, detail="")
    assert ">mystery<" in render_template("tool_call.j2", name="t", state="mystery", detail="")


UNKNOWN_CONTENT = ('{"ok":false,"protocol":1,"tool":"create_work_order","tool_call_id":"c9","error":{"code":"timeout",'
                   '"message":"no answer in 5 s","detail":{"idempotency_key":"work-order:i:bolt:abc","outcome":'
                   '"outcome_unknown"}}}')
UNKNOWN_MESSAGE = {"type": "tool", "tool_call_id": "c9", "name": "create_work_order", "status": "error",
                   "content": UNKNOWN_CONTENT}


def test_a_server_call_without_an_answer_is_outcome_unknown_never_failed_until_reconciled():
    calls, view = board()
    calls.show("c9", "create_work_order", S.APPROVED)
    calls.settle([UNKNOWN_MESSAGE])
    calls.settle([UNKNOWN_MESSAGE], {"c9": {"status": "outcome_unknown"}})  # the next values event: not shown again
    assert view.states("create_work_order") == ["approved", "outcome_unknown"]
    assert "c9" not in calls.settled and calls.status("c9") is S.OUTCOME_UNKNOWN
    assert [e[3] for e in view.events][-1] == "timeout: no answer in 5 s"
    calls.settle([UNKNOWN_MESSAGE], {"c9": {"status": "succeeded", "work_order": "WO-1"}})
    assert view.states("create_work_order")[-1] == "succeeded" and [e[3] for e in view.events][-1] == \
        "reconciled: work order WO-1"
    assert calls.lifecycles["c9"].path[-3:] == [S.RUNNING, S.OUTCOME_UNKNOWN, S.SUCCEEDED]
    calls.settle([UNKNOWN_MESSAGE], {"c9": {"status": "succeeded", "work_order": "WO-1"}})
    assert view.states("create_work_order").count("succeeded") == 1


def test_a_call_reconciled_before_a_reload_shows_it_was_unknown_first():
    calls, view = board()
    calls.settle([UNKNOWN_MESSAGE], {"c9": {"status": "succeeded", "work_order": "WO-1"}})
    assert view.states("create_work_order") == ["succeeded"]
    assert S.OUTCOME_UNKNOWN in calls.lifecycles["c9"].path


def test_what_a_frame_held_is_shown_before_the_values_event_that_settles_it():
    """The call's fragments wait for their frame; the values event after them (with the call's tool message)
    must not overtake them, or the call would read done before its arguments were ever shown ready."""
    first = {"type": "AIMessageChunk", "id": "m1", "content": "", "tool_call_chunks": [
        {"index": 0, "id": "c1", "name": "lookup_site", "args": '{"site":'}]}
    last = {"type": "AIMessageChunk", "id": "m1", "content": "", "chunk_position": "last",
            "tool_call_chunks": [{"index": 0, "args": '"Pier 4"}'}]}
    messages = [{"type": "ai", "id": "m1", "content": "", "tool_calls": [
                    {"id": "c1", "name": "lookup_site", "args": {"site": "Pier 4"}}]},
                {"type": "tool", "tool_call_id": "c1", "name": "lookup_site", "content": '{"ok": true}'}]
    stream = sse(("metadata", {"run_id": "r1"}), ("messages", [first, {}]), ("messages", [last, {}]),
                 ("values", {"messages": messages}))
    view = _streamed(stream, frame_s=60)  # a frame longer than the test: only the flush before `values` shows it
    assert view.states("lookup_site") == ["collecting_args", "args_ready", "succeeded"]
    assert _args_events(view) == [("c1", '{"site":', False), ("c1", '"Pier 4"}', False)]
