"""A time-travel run redraws the live view from the state it starts from, then streams on top.

The old branch's later messages and screen go; the new run's messages show once; and the page ends as a
reopen of the thread shows it. Against the fake agent server, with states made by the real graph.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from fake_agent_server import BASE_URL, HISTORY, RUNS, STATE, THREAD_ID, FakeTransport, PageView, sse, state_at
from test_inspections import graph_state

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.session import InspectionSession
from sitewalk.session.travel import TimeTravel


def _risk(view: PageView) -> str:
    assert view.on_screen is not None
    return str(view.on_screen["elements"]["risk"]["props"]["level"])


def _states() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The old branch (a follow-up made the risk critical), its fork point before the follow-up (risk low),
    the fork's checkpoint (another follow-up written there) and the new branch's end (the agent's answer)."""
    old = graph_state(("the risk is critical",))
    messages = old["values"]["messages"]
    cut = next(i for i, m in enumerate(messages) if m.get("id") == "user-2")
    spec = copy.deepcopy(old["values"]["ui_spec"])
    spec["elements"]["risk"]["props"] = {"level": "low", "label": "Risk: low"}
    spec["identity"]["revision"] = 1

    def at(checkpoint_id: str, kept: list[dict[str, Any]], nxt: list[str]) -> dict[str, Any]:
        return {**old, "values": {**old["values"], "messages": kept, "ui_spec": spec}, "next": nxt,
                "checkpoint": {"checkpoint_ns": "", "checkpoint_id": checkpoint_id},
                "metadata": {"source": "loop"}, "created_at": "2026-12-03T10:00:00+00:00"}

    said = {"type": "human", "id": "user-3", "content": "add finding: loose bolt"}
    answer = {"type": "ai", "id": "msg-new", "content": "Added the finding: loose bolt.", "tool_calls": []}
    fork_point = at("c1", messages[:cut], [])
    forked = at("c2", [*messages[:cut], said], ["model"])
    new_end = at("c3", [*messages[:cut], said, answer], [])
    return old, fork_point, forked, new_end


def _run(forked: dict[str, Any], new_end: dict[str, Any]) -> str:
    """The fork's run: its state, the agent's answer streamed in two fragments, then its last values."""
    answer = new_end["values"]["messages"][-1]
    chunks = [{"type": "AIMessageChunk", "id": answer["id"], "content": part, "tool_call_chunks": []}
              for part in ("Added the finding: ", "loose bolt.")]
    chunks[-1]["chunk_position"] = "last"
    return sse(("metadata", {"run_id": "r-fork"}), ("values", forked["values"]),
               *[("messages", [chunk, {"langgraph_node": "model"}]) for chunk in chunks],
               ("values", new_end["values"]))


def _reopened(state: dict[str, Any]) -> PageView:
    fake = FakeTransport().on("GET", STATE, (200, state)).on("GET", RUNS, (200, [])).on("POST", HISTORY, (200, []))
    view = PageView()
    session = InspectionSession(AgentServerClient(BASE_URL, transport=fake), _no_tools(), view)
    asyncio.run(session.reopen(THREAD_ID))
    return view


def _no_tools() -> Any:
    from sitewalk.headless import HeadlessToolRegistry

    return HeadlessToolRegistry()


def test_a_fork_redraws_the_view_from_its_fork_point_then_shows_the_new_run_once_as_a_reopen_would():
    old, fork_point, forked, new_end = _states()
    fake = FakeTransport().on("GET", STATE, (200, old)).on("GET", RUNS, (200, [])).on("POST", HISTORY, (200, []))
    fake.on("POST", state_at(THREAD_ID, "c1"), (200, fork_point)).on("POST", state_at(THREAD_ID, "c2"), (200, forked))
    fake.on("POST", STATE, (200, {"checkpoint": forked["checkpoint"]}))
    fake.on("POST", f"{RUNS}/stream", _run(forked, new_end))
    view = PageView()
    session = InspectionSession(AgentServerClient(BASE_URL, transport=fake), _no_tools(), view)

    async def go() -> None:
        await session.reopen(THREAD_ID)  # the old branch on the page
        assert ("you", "the risk is critical") in view.transcript() and _risk(view) == "critical"
        view.log.clear()
        fake.routes[0].replies[:] = [(200, new_end)]  # from now on the thread's head is the new branch's end
        assert session.parts is not None
        await TimeTravel(session.client, session.parts).fork("c1", {"messages": [forked["values"]["messages"][-1]]},
                                                             "__start__")

    asyncio.run(go())
    # redrawn from the fork's checkpoint before any of the run's events: the old follow-up and answer gone
    assert view.log[0] == ("clear", "")
    drawn = [message_id for kind, message_id in view.log[1:] if kind != "clear"]
    assert drawn.index("user-3") < drawn.index("msg-new") and "user-2" not in drawn
    lines = view.transcript()
    assert ("you", "the risk is critical") not in lines
    assert not any("critical" in text for _, text in lines)
    assert lines[-2:] == [("you", "add finding: loose bolt"), ("agent", "Added the finding: loose bolt.")]
    assert [text for _, text in lines].count("Added the finding: loose bolt.") == 1  # whole, once
    assert _risk(view) == "low"  # the fork point's screen, not the old branch's
    # the invariant: the page is what a reopen of the thread shows
    again = _reopened(new_end)
    assert lines == again.transcript() and view.on_screen == again.on_screen


def test_a_message_the_old_branch_streamed_here_is_shown_again_when_the_new_run_streams_it():
    """Re-running a step whose writes are stored streams the same message id again: it must not be taken
    for one already shown (dropped) nor added to its old words (doubled)."""
    old, fork_point, forked, new_end = _states()
    replay = {**fork_point, "next": ["model"]}
    fake = FakeTransport().on("GET", STATE, (200, fork_point)).on("GET", RUNS, (200, []))
    fake.on("POST", HISTORY, (200, [])).on("POST", state_at(THREAD_ID, "c1"), (200, replay))
    fake.on("POST", f"{RUNS}/stream", _run(forked, new_end))
    view = PageView()
    session = InspectionSession(AgentServerClient(BASE_URL, transport=fake), _no_tools(), view)

    async def go() -> None:
        await session.reopen(THREAD_ID)
        assert session.parts is not None
        travel = TimeTravel(session.client, session.parts)
        await travel.run_from("c1")  # the answer streamed here once
        first = view.texts["msg-new"]
        await travel.replay("c1")  # and again, the same id from the stored writes
        return first

    first = asyncio.run(go())
    assert first == view.texts["msg-new"] == "Added the finding: loose bolt."
    assert [text for _, text in view.transcript()].count("Added the finding: loose bolt.") == 1


def test_a_fork_whose_run_fails_midway_leaves_the_page_as_the_thread_is_and_says_why():
    """The run fails on the server after a first fragment of the answer: the error comes back, and the page
    shows the thread as it is (the fork written, nothing of the failed step) rather than half an answer."""
    from sitewalk.base.server_errors import StreamError

    old, fork_point, forked, new_end = _states()
    fake = FakeTransport().on("GET", STATE, (200, old)).on("GET", RUNS, (200, [])).on("POST", HISTORY, (200, []))
    fake.on("POST", state_at(THREAD_ID, "c1"), (200, fork_point)).on("POST", state_at(THREAD_ID, "c2"), (200, forked))
    fake.on("POST", STATE, (200, {"checkpoint": forked["checkpoint"]}))
    half = _run(forked, new_end).split("event: messages")[0] + "event: messages" + \
        _run(forked, new_end).split("event: messages")[1]
    fake.on("POST", f"{RUNS}/stream", half + sse(("error", {"error": "ModelError", "message": "model down"})))
    view = PageView()
    session = InspectionSession(AgentServerClient(BASE_URL, transport=fake), _no_tools(), view)

    async def go() -> tuple[Exception, list[tuple[str, str]]]:
        await session.reopen(THREAD_ID)
        fake.routes[0].replies[:] = [(200, forked)]  # the thread's head: the fork's checkpoint, nothing after
        assert session.parts is not None
        drawn = view.log
        try:
            await TimeTravel(session.client, session.parts).fork("c1", {"messages": [forked["values"]["messages"][-1]]},
                                                             "__start__")
        except StreamError as error:
            return error, list(drawn)
        raise AssertionError("the failed run was not reported")

    error, drawn = asyncio.run(go())
    assert error.message == "model down"
    assert ("agent", "msg-new") in drawn  # half the answer was shown while it streamed...
    assert view.transcript() == _reopened(forked).transcript()  # ...and the page is the thread as it is
    assert view.transcript()[-1] == ("you", "add finding: loose bolt") and _risk(view) == "low"
