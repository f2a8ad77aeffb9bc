"""RunStream with a fake transport: a run's stream to the view, rejoined after a drop, and what it said."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    OFFLINE,
    RUNS,
    STATE,
    FakeTransport,
    RecordingView,
    finished_run,
    fixture,
    paused_run,
    sse,
    waiting_state,
)
from sessions_for_tests import stream_on

from sitewalk.session.stream import Streamed


def run_stream(fake: FakeTransport, **kwargs: Any) -> tuple[Streamed, RecordingView]:
    view = RecordingView()
    return asyncio.run(stream_on(fake, view).run(**kwargs)), view


def test_a_recorded_run_shows_its_words_and_tool_call_and_keeps_the_interrupt_it_raised():
    fake = FakeTransport().on("POST", f"{RUNS}/stream", fixture("start.sse"))
    streamed, view = run_stream(fake, input={"messages": []})
    assert list(view.texts.values()) == ["Looking up the draft for inspection-42."]
    states = view.states("read_local_draft")
    # shown once a frame: collecting first only when a frame passed between its fragments (the fake is faster)
    assert states[-1] == "args_ready" and set(states) <= {"collecting_args", "args_ready"}
    state = streamed.state()
    assert state is not None and [i["value"]["tool_call"]["name"] for i in state["interrupts"]] == ["read_local_draft"]
    request, ended = fake.requests
    assert ended.method == "GET" and ended.path.startswith(f"{RUNS}/")  # did the run end with its stream?
    assert request.json["stream_resumable"] is True and request.json["on_disconnect"] == "continue"
    assert request.json["stream_mode"] == ["values", "updates", "messages-tuple"]


def test_a_dropped_connection_is_rejoined_from_the_last_id_and_then_the_state_must_be_read():
    cut = [paused_run()[:120], OFFLINE]  # the metadata event arrived, then the connection broke
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", cut)
            .on("GET", f"{RUNS}/r1/stream", paused_run()))
    streamed, view = run_stream(fake, input={})
    [join] = fake.sent("GET", f"{RUNS}/r1/stream")
    assert join.headers.get("Last-Event-ID") is None  # only one id seen: the rejoin starts from the start
    assert any("Connection lost" in s for s in view.statuses())
    assert streamed.whole and streamed.dropped and streamed.state() is None  # a rejoin may miss events


def test_a_stream_that_ends_cleanly_while_its_run_goes_on_is_rejoined_like_a_cut_one():
    # a proxy closed the connection as politely as a finished run: only the run's record tells
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", [paused_run()[:120]])
            .on("GET", f"{RUNS}/r1", *[(200, {"run_id": "r1", "status": "running"})] * 3,  # still, a moment later
                (200, {"run_id": "r1", "status": "success"}))
            .on("GET", f"{RUNS}/r1/stream", paused_run()))
    streamed, view = run_stream(fake, input={})
    assert len(fake.sent("GET", f"{RUNS}/r1/stream")) == 1
    assert any("Connection lost" in s for s in view.statuses())
    assert streamed.whole and streamed.dropped and streamed.interrupts  # the rest of the run arrived


def test_a_stream_that_ends_with_its_run_is_not_rejoined():
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", paused_run())
            .on("GET", f"{RUNS}/r1", (200, {"run_id": "r1", "status": "interrupted"})))
    streamed, view = run_stream(fake, input={})
    assert fake.sent("GET", f"{RUNS}/r1/stream") == [] and not streamed.dropped
    assert not any("Connection lost" in s for s in view.statuses())


def test_a_message_a_node_wrote_whole_reaches_the_transcript():
    words = {"type": "ai", "id": "m7", "content": "Work order work-order:inspection-42:risk-1 created."}
    fake = FakeTransport().on("POST", f"{RUNS}/stream", sse(("metadata", {"run_id": "r3"}),
                                                            ("messages", [words, {"langgraph_node": "actions"}])))
    _, view = run_stream(fake, command={"resume": {"i": {}}})
    assert view.texts == {"m7": "Work order work-order:inspection-42:risk-1 created."}


def test_following_the_latest_run_joins_it_from_its_start_and_settles_calls_from_the_state():
    tool_message = {"type": "tool", "name": "read_local_draft", "tool_call_id": "call_1", "status": "error",
                    "content": '{"ok": false, "error": {"code": "not_found", "message": "no draft"}}'}
    fake = (FakeTransport().on("GET", RUNS, (200, [{"run_id": "r2", "status": "success"}]))
            .on("GET", f"{RUNS}/r2/stream", finished_run())
            .on("GET", STATE, (200, waiting_state(values={"messages": [tool_message]}))))
    view = RecordingView()
    streamed = asyncio.run(stream_on(fake, view).follow_latest())
    assert fake.sent("GET", RUNS)[0].query == "limit=1"
    assert "The draft says Pier 4." in view.texts.values()
    assert streamed.state() is None  # joined late: the state is read, not assumed
    # the stream said success for call_1; the state is read after it, and the end is shown once
    assert view.states("read_local_draft") == ["succeeded"]
