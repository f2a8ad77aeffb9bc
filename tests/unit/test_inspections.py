"""This device's inspections (sitewalk.inspections) and reopening one (session.reopen, session/restore.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fake_agent_server import (
    CALL,
    HISTORY,
    INTERRUPT,
    RUNS,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    counted_registry,
    finished_run,
    waiting_state,
)
from langchain_core.messages import HumanMessage
from sessions_for_tests import client_on, session_on

from sitewalk.inspections import InspectionList
from sitewalk.session.restore import transcript
from sitewalk_shared.contracts.envelope import ok_result

SEARCH = "/threads/search"
CHECKPOINT: dict[str, Any] = {
    "checkpoint": {"checkpoint_id": "c1"}, "parent_checkpoint": None, "metadata": {"source": "input"},
    "next": [], "values": {"messages": []}, "tasks": [], "created_at": "2026-12-03T09:00:00Z"}


def thread(n: int, status: str = "idle") -> dict[str, Any]:
    return {"thread_id": f"t{n}", "status": status, "updated_at": f"2026-12-03T09:{n:02d}:00Z",
            "created_at": "2026-12-03T08:00:00Z", "metadata": {"inspection_id": f"inspection-{n}", "device_id": "d1"}}


# --- the list ---------------------------------------------------------------------------------


def test_the_list_pages_by_device_newest_first_and_stops_on_a_short_page():
    fake = FakeTransport().on("POST", SEARCH, (200, [thread(9), thread(8, "busy")]),
                              (200, [thread(8), {**thread(7, "interrupted"), "interrupts": {"task": [INTERRUPT]}}]),
                              (200, [thread(6)]))
    for n in (9, 6):
        fake.on("GET", f"/threads/t{n}/runs", (200, [{"run_id": f"r{n}", "status": "success"}]))
    inspections = InspectionList(client_on(fake), "d1", page_size=2)
    first = asyncio.run(inspections.more())
    assert [(e.inspection_id, e.status.words) for e in first] == [("inspection-9", "done"),
                                                                  ("inspection-8", "running")]
    assert first[0].updated_at == "2026-12-03T09:09:00Z" and inspections.has_more
    second = asyncio.run(inspections.more())
    assert [e.thread_id for e in second] == ["t7"]  # t8 moved down meanwhile: listed once
    asyncio.run(inspections.more())
    assert [e.thread_id for e in inspections.entries] == ["t9", "t8", "t7", "t6"] and not inspections.has_more
    assert asyncio.run(inspections.more()) == []  # nothing more is asked
    bodies = [r.json for r in fake.sent("POST", SEARCH)]
    assert [b["offset"] for b in bodies] == [0, 2, 4]
    assert all(b["metadata"] == {"device_id": "d1"} and b["limit"] == 2 and b["sort_by"] == "updated_at"
               and b["sort_order"] == "desc" for b in bodies)


def test_a_thread_the_search_lists_too_briefly_is_told_from_its_state_and_the_others_are_not_read():
    """Aegra lists no interrupts and no failure's reason: the state of those threads alone is read."""
    review = {"type": "tool_approval", "name": "create_work_order", "tool_call_id": "c"}
    states = {
        "t1": waiting_state(*({"id": f"r{n}", "value": review} for n in range(3))),  # interrupted, unlisted
        "t2": {**waiting_state(), "tasks": [{"name": "model", "error": "ValueError('model down')", "interrupts": []}]},
        "t3": waiting_state({"id": "r9", "value": review}),  # in `error`, but a review is still pending
    }
    fake = FakeTransport().on("POST", SEARCH, (200, [thread(1, "interrupted"), thread(2, "error"), thread(3, "error"),
                                                     thread(4, "busy"), thread(5, "idle")]))
    for thread_id, state in states.items():
        fake.on("GET", f"/threads/{thread_id}/state", (200, state))
    fake.on("GET", "/threads/t5/runs", (200, [{"run_id": "r5", "status": "success"}]))
    entries = asyncio.run(InspectionList(client_on(fake), "d1").more())
    assert [(e.thread_id, e.status.words) for e in entries] == [
        ("t1", "waiting for your review (3)"), ("t2", "failed: ValueError: model down"),
        ("t3", "waiting for your review (1)"), ("t4", "running"), ("t5", "done")]
    assert [e.status.name for e in entries] == ["waiting", "failed", "waiting", "running", "done"]
    assert sorted(r.path for r in fake.requests if r.method == "GET") == [
        *(f"/threads/t{n}/state" for n in (1, 2, 3)), "/threads/t5/runs"]  # the idle one: its newest run only


def test_an_idle_thread_whose_newest_run_was_cancelled_is_listed_cancelled_as_the_status_line_said():
    """The inspector's Cancel stops the run (action=interrupt: run status `interrupted`, the thread idle);
    the list used to call it "done"."""
    fake = FakeTransport().on("POST", SEARCH, (200, [thread(1), thread(2), thread(3)]))
    fake.on("GET", "/threads/t1/runs", (200, [{"run_id": "r1", "status": "interrupted"}]))
    fake.on("GET", "/threads/t2/runs", (200, [{"run_id": "r2", "status": "success"}]))
    fake.on("GET", "/threads/t3/runs", (200, []))  # a thread no run was started on
    entries = asyncio.run(InspectionList(client_on(fake), "d1").more())
    assert [(e.thread_id, e.status.words, e.status.name) for e in entries] == [
        ("t1", "cancelled", "cancelled"), ("t2", "done", "done"), ("t3", "done", "done")]
    assert [r.query for r in fake.sent("GET", "/threads/t1/runs")] == ["limit=1"]


def test_a_state_that_cannot_be_read_leaves_its_entry_as_the_search_tells_and_the_rest_listed():
    fake = FakeTransport().on("POST", SEARCH, (200, [thread(1, "error"), thread(2)]))
    fake.on("GET", "/threads/t1/state", (404, {"detail": "gone"}))
    fake.on("GET", "/threads/t2/runs", (404, {"detail": "gone"}))  # its newest run unreadable: done, as listed
    entries = asyncio.run(InspectionList(client_on(fake), "d1").more())
    assert [(e.thread_id, e.status.words) for e in entries] == [("t1", "failed: the run ended in error"),
                                                                ("t2", "done")]


def test_the_list_is_rendered_with_the_status_lines_words():
    from sitewalk.inspections import Inspection
    from sitewalk.ui.render import render_template

    entry = Inspection.of({**thread(1, "interrupted"), "interrupts": {"task": [INTERRUPT]}})
    html = str(render_template("inspections.j2", entries=[entry], current=None))
    assert 'data-status="waiting"' in html and ">waiting for this device</span>" in html


# --- restoring a view from a state the real graph made ------------------------------------------

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "low"}


def graph_state(follow_ups: tuple[str, ...]) -> dict[str, Any]:
    """The state of an inspection driven through the real graph, serialized as the server sends it."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from sitewalk_agent import graph as G

    async def go() -> dict[str, Any]:
        graph = G.build_graph()
        graph.checkpointer = InMemorySaver()
        config = {"configurable": {"thread_id": "t", "fragment_delay_ms": 0}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42", id="user-1")]}, config)
        [pending] = (await graph.aget_state(config)).interrupts
        call_id = pending.value["tool_call"]["id"]
        await graph.ainvoke(Command(resume={pending.id: {call_id: ok_result("read_local_draft", call_id, DRAFT)}}),
                            config)
        for n, text in enumerate(follow_ups):
            await graph.ainvoke({"messages": [HumanMessage(text, id=f"user-{n + 2}")]}, config)
        values = (await graph.aget_state(config)).values
        messages = [m.model_dump(mode="json") for m in values["messages"]]
        return json.loads(json.dumps({**waiting_state(), "values": {**values, "messages": messages}}, default=str))

    return asyncio.run(go())


def test_the_transcript_of_a_state_has_both_sides_without_patch_lines():
    state = graph_state(("the risk is critical", "add finding: loose bolt"))
    lines = transcript(state["values"]["messages"])
    assert [(who, text) for who, _, text in lines] == [
        ("you", "Start inspection inspection-42"),
        ("agent", "Looking up the draft for inspection-42."),
        ("agent", "The card for inspection-42 is on screen."),
        ("you", "the risk is critical"),
        ("agent", "Understood: the risk is now critical."),
        ("you", "add finding: loose bolt"),
        ("agent", "Added the finding: loose bolt."),
    ]
    assert lines[0][1] == "user-1" and lines[3][1] == "user-2"


class TranscriptView(RecordingView):
    """A view that also shows the inspector's words (DomView does)."""

    def __init__(self) -> None:
        super().__init__()
        self.said: dict[str, str] = {}

    def user_text(self, message_id: str, text: str) -> None:
        self.said[message_id] = text


def reopened(state: dict[str, Any], fake: FakeTransport | None = None) -> tuple[TranscriptView, FakeTransport, Any]:
    registry, runs = counted_registry()
    fake = fake or FakeTransport()
    fake.on("GET", STATE, (200, state)).on("GET", RUNS, (200, [])).on("POST", HISTORY, (200, [CHECKPOINT]))
    view = TranscriptView()
    session, _ = session_on(fake, registry, view)
    asyncio.run(session.reopen(THREAD_ID))
    return view, fake, runs


def test_reopening_a_finished_inspection_restores_transcript_screen_calls_and_timeline_and_runs_nothing():
    state = graph_state(("the risk is critical",))
    view, fake, runs = reopened(state)
    assert view.said == {"user-1": "Start inspection inspection-42", "user-2": "the risk is critical"}
    assert "Understood: the risk is now critical." in view.texts.values()
    assert view.screens[-1]["elements"]["risk"]["props"]["level"] == "critical"  # the screen on record
    assert view.states("read_local_draft") == ["succeeded"] and view.states("render_ui") == ["succeeded"]
    assert view.checkpoints and runs == []
    assert fake.sent("POST", f"{RUNS}/stream") == []


def test_reopening_an_inspection_waiting_on_a_headless_tool_shows_it_then_answers_it_once():
    fake = FakeTransport().on("POST", f"{RUNS}/stream", finished_run())
    view, fake, runs = reopened(waiting_state(INTERRUPT), fake)
    assert view.states("read_local_draft")[0] == "running"  # shown pending before it is answered
    [resume] = [r.json["command"]["resume"] for r in fake.sent("POST", f"{RUNS}/stream")]
    assert list(resume) == ["int-1"] and CALL["id"] in resume["int-1"] and len(runs) == 1


def test_reopening_an_inspection_whose_run_is_going_follows_that_run():
    fake = FakeTransport().on("GET", RUNS, (200, [{"run_id": "r2", "status": "running"}]))
    fake.on("GET", f"{RUNS}/r2/stream", finished_run())
    view, fake, _ = reopened(waiting_state(), fake)
    assert fake.sent("GET", f"{RUNS}/r2/stream") and fake.sent("GET", RUNS)[0].query.startswith("limit=1")
    assert "The draft says Pier 4." in view.texts.values()
