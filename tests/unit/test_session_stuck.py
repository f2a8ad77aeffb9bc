"""A run no worker carries (a server restarted without Redis): shown stuck, then cancelled or continued.

The fake server cuts the run's stream mid-run; its rejoined stream stays silent (`Silence`) while
`GET /runs/r1` keeps saying running, as Aegra does after a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest
from fake_agent_server import (
    HISTORY,
    INTERRUPT,
    OFFLINE,
    RUNS,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    Silence,
    finished_run,
    sse,
    waiting_state,
)
from sessions_for_tests import no_wait, session_on, thread_server

from sitewalk.session import InspectionSession, Refused
from sitewalk.session.progress import StuckPolicy, StuckRun

FAST = StuckPolicy(quiet_s=0.05, confirm_s=0.05, tick_s=0.01)
WORDS = {"type": "AIMessageChunk", "id": "m1", "content": "Drawing the inspection screen", "tool_call_chunks": []}
RUNNING = (200, {"run_id": "r1", "thread_id": THREAD_ID, "status": "running"})
MID_RUN = {**waiting_state(), "next": ["model"]}  # checkpoint c9, the model left to run, nothing pending


def cut_run() -> list[Any]:
    """A run that streams some words, then its server is killed (the connection breaks)."""
    return [sse(("metadata", {"run_id": "r1"}, "1-0"), ("messages", [WORDS, {"langgraph_node": "model"}], "2-0")),
            OFFLINE]


class RecordingPanel:
    def __init__(self) -> None:
        self.shown: list[StuckRun | None] = []
        self.refusals: list[tuple[str, str]] = []

    def stuck(self, run: StuckRun | None) -> None:
        self.shown.append(run)

    def refused(self, code: str, message: str) -> None:
        self.refusals.append((code, message))

    @property
    def up(self) -> bool:
        return bool(self.shown) and self.shown[-1] is not None


def server(join: list[Any], *runs: Any, state: dict[str, Any] = MID_RUN) -> FakeTransport:
    return (thread_server(*runs)
            .on("GET", f"{RUNS}/r1/stream", join)
            .on("GET", f"{RUNS}/r1", RUNNING)
            .on("POST", f"{RUNS}/r1/cancel", (200, {"run_id": "r1", "status": "interrupted"}))
            .on("GET", STATE, (200, state))
            .on("POST", HISTORY, (200, [])))


def overriding(fake: FakeTransport, method: str, path: str, *replies: Any) -> FakeTransport:
    """The same server, with this route answering before the one `server` set."""
    fake.routes.insert(0, FakeTransport().on(method, path, *replies).routes[0])
    return fake


def stuck_session(fake: FakeTransport, panel: RecordingPanel, view: RecordingView | None = None) -> InspectionSession:
    return session_on(fake, view=view, stuck_panel=panel, stuck_policy=FAST, wait_for_network=no_wait)[0]


async def until(condition: Any, seconds: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "not within the time given"
        await asyncio.sleep(0.005)


def bodies(fake: FakeTransport) -> list[Any]:
    return [r.json for r in fake.sent("POST", f"{RUNS}/stream")]


def drive(work: Awaitable[Any], then: Any) -> None:
    async def go() -> None:
        task = asyncio.ensure_future(work)
        await then()
        await asyncio.wait_for(task, 5)

    asyncio.run(go())


def test_a_silent_rejoined_run_the_server_keeps_running_is_shown_stuck_and_continue_runs_on_from_its_checkpoint():
    fake = server([Silence()], cut_run(), finished_run())
    panel, view = RecordingPanel(), RecordingView()
    session = stuck_session(fake, panel, view)

    async def then() -> None:
        await until(lambda: panel.up)
        assert panel.shown[-1] == StuckRun("r1", "running", "c9", panel.shown[-1].silent_s)
        assert fake.sent("POST", f"{RUNS}/r1/cancel") == []  # nothing happens before the inspector chooses
        session.resolve_stuck("continue")

    drive(session.start("inspection-42"), then)
    [cancel] = fake.sent("POST", f"{RUNS}/r1/cancel")
    assert cancel.query == "wait=0&action=interrupt"  # the checkpoints stay; Aegra reads wait as an integer
    start, again = bodies(fake)
    assert again["input"] is None and again["checkpoint"] == {"checkpoint_id": "c9"} and "command" not in again
    assert panel.shown[-1] is None and not session.cancelled
    assert view.texts["m1"] == "Drawing the inspection screen"  # what was seen stays
    assert "The draft says Pier 4." in view.texts.values()
    assert any("stuck" in s for s in view.statuses()) and "Continuing from the last checkpoint" in view.statuses()


def test_cancel_on_the_panel_cancels_the_run_on_the_server_and_starts_nothing():
    fake = server([Silence()], cut_run())
    panel, view = RecordingPanel(), RecordingView()
    session = stuck_session(fake, panel, view)

    async def then() -> None:
        await until(lambda: panel.up)
        session.resolve_stuck("cancel")

    drive(session.start("inspection-42"), then)
    assert len(fake.sent("POST", f"{RUNS}/r1/cancel")) == 1 and len(bodies(fake)) == 1
    assert session.cancelled and panel.shown[-1] is None
    assert view.texts["m1"] == "Drawing the inspection screen"


def test_a_run_that_moves_again_hides_the_panel_and_needs_no_choice():
    silence = Silence()
    rest = sse(("values", {"messages": [{"type": "ai", "id": "m1", "content": "Done."}]}, "3-0"))
    fake = server([silence, rest], cut_run())
    panel = RecordingPanel()
    session = stuck_session(fake, panel)

    async def then() -> None:
        await until(lambda: panel.up)
        overriding(fake, "GET", f"{RUNS}/r1", (200, {"run_id": "r1", "status": "success"}))
        silence.end()  # a worker took the run up after all (and ends it)
        await until(lambda: not panel.up)
        with pytest.raises(Refused) as refused:
            session.resolve_stuck("continue")
        assert refused.value.code == "not_stuck"

    drive(session.start("inspection-42"), then)
    assert fake.sent("POST", f"{RUNS}/r1/cancel") == [] and len(bodies(fake)) == 1


def test_silence_on_a_stream_that_never_dropped_asks_the_server_nothing():
    silence = Silence()
    thinking = [sse(("metadata", {"run_id": "r1"}, "1-0")), silence,
                sse(("values", {"messages": []}, "2-0"))]
    fake = server([], thinking)
    panel = RecordingPanel()
    session = stuck_session(fake, panel)

    async def then() -> None:
        await asyncio.sleep(20 * FAST.quiet_s)  # a model thinking for long on a live connection
        assert fake.sent("GET", f"{RUNS}/r1") == []  # not asked
        overriding(fake, "GET", f"{RUNS}/r1", (200, {"run_id": "r1", "status": "success"}))
        silence.end()

    drive(session.start("inspection-42"), then)
    assert panel.shown == []


def test_continue_refused_while_the_server_is_out_of_reach_keeps_the_run_stuck_and_may_be_tried_again():
    fake = overriding(server([Silence()], cut_run(), finished_run()), "POST", f"{RUNS}/r1/cancel", OFFLINE, (200, {}))
    panel = RecordingPanel()
    session = stuck_session(fake, panel)

    async def then() -> None:
        await until(lambda: panel.up)
        session.resolve_stuck("continue")
        await until(lambda: bool(panel.refusals))
        assert panel.refusals[0][0] == "ServerUnreachable" and panel.up  # still stuck, nothing lost
        assert len(bodies(fake)) == 1
        session.resolve_stuck("continue")

    drive(session.start("inspection-42"), then)
    assert len(fake.sent("POST", f"{RUNS}/r1/cancel")) == 2 and bodies(fake)[1]["checkpoint"] == {"checkpoint_id": "c9"}


def test_a_stuck_run_found_on_reopen_whose_thread_waits_on_a_tool_is_answered_not_run_again():
    waiting = waiting_state(INTERRUPT)
    fake = (server([Silence()], finished_run(), state=waiting)
            .on("GET", RUNS, (200, [{"run_id": "r1", "status": "running"}])))
    panel = RecordingPanel()
    session = stuck_session(fake, panel)

    async def then() -> None:
        await until(lambda: panel.up)
        session.resolve_stuck("continue")

    drive(session.reopen(THREAD_ID), then)
    [resume] = bodies(fake)  # no run from the checkpoint: the pending tool is answered, once
    assert list(resume["command"]["resume"]) == [INTERRUPT["id"]]


def test_a_silent_stream_whose_run_the_server_says_ended_is_left_and_the_state_read():
    fake = overriding(server([Silence()], cut_run()), "GET", f"{RUNS}/r1", (200, {"run_id": "r1", "status": "success"}))
    panel = RecordingPanel()
    session = stuck_session(fake, panel)
    asyncio.run(asyncio.wait_for(session.start("inspection-42"), 5))
    assert panel.shown == [] and fake.sent("POST", f"{RUNS}/r1/cancel") == []
    assert len(fake.sent("GET", STATE)) >= 1  # the loop read the state to see what waits


def test_the_cancel_button_while_stuck_leaves_the_silent_stream():
    fake = server([Silence()], cut_run()).on("GET", RUNS, (200, [{"run_id": "r1", "status": "running"}]))
    panel = RecordingPanel()
    session = stuck_session(fake, panel)

    async def then() -> None:
        await until(lambda: panel.up)
        await session.cancel()

    drive(session.start("inspection-42"), then)
    assert session.cancelled and panel.shown[-1] is None and len(bodies(fake)) == 1


def test_a_choice_with_nothing_stuck_or_an_unknown_choice_is_refused_and_sends_nothing():
    fake = server([])
    session = stuck_session(fake, RecordingPanel())
    for choice, code in (("continue", "not_stuck"), ("restart", "unknown_choice")):
        with pytest.raises(Refused) as refused:
            session.resolve_stuck(choice)
        assert refused.value.code == code
    assert fake.requests == [] and not session.cancelled


def test_the_panel_names_the_run_its_status_and_both_choices_and_escapes_what_the_server_said():
    from sitewalk.ui.render import render_template

    run = StuckRun("r1", "running", "1f1ef0d7-f55f-6fe8-8005", 16.4)
    html = render_template("stuck_run.j2", run=run, refusal=("ServerUnreachable", "<b>down</b>"), busy=False)
    assert "This run is stuck" in html and "<code>r1</code>" in html and "<strong>running</strong>" in html
    assert "for 16 s" in html and "1f1ef0d7-f55f…" in html
    assert 'data-stuck-action="continue"' in html and 'data-stuck-action="cancel"' in html and "disabled" not in html
    assert 'data-code="ServerUnreachable"' in html and "&lt;b&gt;down&lt;/b&gt;" in html
    busy = render_template("stuck_run.j2", run=run, refusal=None, busy=True)
    assert busy.count(" disabled") == 2 and "sw-stuck-refused" not in busy
