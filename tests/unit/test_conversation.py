"""The inspector's follow-up messages (session/conversation.py), with the fake transport."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    HISTORY,
    INTERRUPT,
    OFFLINE,
    RUNS,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    counted_registry,
    finished_run,
    paused_run,
    sse,
    waiting_state,
)
from sessions_for_tests import parts_on, session_on, thread_server

from sitewalk.base.server_errors import error_for_status
from sitewalk.session.conversation import WAITING_FOR_ANSWER, WAITING_FOR_OTHER_RUN, WAITING_FOR_RUN

CHECKPOINT: dict[str, Any] = {
    "checkpoint": {"checkpoint_id": "c1"}, "parent_checkpoint": None, "metadata": {"source": "input"},
    "next": [], "values": {"messages": []}, "tasks": [], "created_at": "2026-12-03T09:00:00Z"}
IDLE = (200, waiting_state())
REPLY = sse(("metadata", {"run_id": "r9"}), ("values", {"messages": []}))


class Outboxes:
    """What the session told the app of its waiting messages: (texts, why) each time."""

    def __init__(self) -> None:
        self.told: list[tuple[list[str], str]] = []

    def __call__(self, messages: list[Any], why: str) -> None:
        self.told.append(([m.text for m in messages], why))


def server(*runs: Any, state: Any = IDLE) -> FakeTransport:
    return (thread_server(*runs)
            .on("GET", STATE, *(state if isinstance(state, list) else [state]))
            .on("POST", HISTORY, (200, [CHECKPOINT])))


def inputs(fake: FakeTransport) -> list[str]:
    """The text of each run's human message, in the order the runs were sent."""
    return [r.json["input"]["messages"][0]["content"] for r in fake.sent("POST", f"{RUNS}/stream")
            if r.json.get("input")]


def test_a_message_sent_while_the_start_runs_waits_and_goes_once_the_run_ends():
    registry, _ = counted_registry()
    fake = server(paused_run(), finished_run(), REPLY)
    outbox = Outboxes()
    session, view = session_on(fake, registry, on_messages=outbox)

    async def go() -> str:
        start = asyncio.create_task(session.start("inspection-42"))
        while session.parts is None or not session.parts.conversation.active or not inputs(fake):
            await asyncio.sleep(0)  # the start's run request is out (its stream is read in a task of its own)
        said = await session.say("the risk is critical")
        assert "the risk is critical" not in inputs(fake)  # not sent over the active run
        await start
        return said

    assert asyncio.run(go()) == "waiting"
    assert outbox.told[0] == (["the risk is critical"], WAITING_FOR_RUN)
    assert any(WAITING_FOR_RUN in s for s in view.statuses())
    # after the start's run (and its resume) ended: sent once, as its own run, after the resume
    assert inputs(fake) == ["Start inspection inspection-42", "the risk is critical"]
    bodies = fake.sent("POST", f"{RUNS}/stream")
    assert "command" in bodies[1].json and bodies[2].json["input"]["messages"][0]["id"].startswith("user-")
    assert outbox.told[-1] == ([], "")


def test_a_message_while_the_agent_waits_for_an_answer_stays_in_the_outbox_and_says_why():
    fake = server(REPLY, state=(200, waiting_state(INTERRUPT)))
    outbox = Outboxes()
    session, view = session_on(fake, on_messages=outbox)
    session._on(THREAD_ID)
    assert asyncio.run(session.say("add finding: rust")) == "waiting"
    assert inputs(fake) == []
    assert outbox.told[-1] == (["add finding: rust"], WAITING_FOR_ANSWER)
    assert session.parts is not None and [m.text for m in session.parts.conversation.outbox] == ["add finding: rust"]


def test_a_message_refused_because_another_run_holds_the_thread_is_kept():
    busy = error_for_status(409, {"detail": "Thread is already running a task"})
    fake = server(busy)
    outbox = Outboxes()
    session, _ = session_on(fake, on_messages=outbox)
    session._on(THREAD_ID)
    assert asyncio.run(session.say("hello")) == "waiting"
    assert outbox.told[-1] == (["hello"], WAITING_FOR_OTHER_RUN)
    fake.routes[1].replies = [REPLY]  # the other run ended: the next flush sends it, once
    assert session.parts is not None
    asyncio.run(session.parts.conversation.flush())
    assert inputs(fake) == ["hello", "hello"] and outbox.told[-1] == ([], "")
    assert session.parts.conversation.outbox == []


def test_a_message_whose_request_was_lost_but_arrived_is_not_sent_twice():
    arrived: dict[str, Any] = {}

    def state_after_loss() -> Any:
        return (200, waiting_state(values={"messages": [{"type": "human", "id": arrived["id"], "content": "hi"}]}))

    fake = server(OFFLINE, REPLY)
    fake.on("GET", f"{RUNS}", (200, [{"run_id": "r9"}]))
    fake.on("GET", f"{RUNS}/r9/stream", REPLY)
    session, _ = session_on(fake, wait_for_network=lambda attempt: asyncio.sleep(0))
    session._on(THREAD_ID)
    states = iter([IDLE])

    async def go() -> str:
        real = fake._reply

        def reply(method: str, url: str, body: Any, headers: Any) -> Any:
            if method == "POST" and url.endswith("/runs/stream") and "id" not in arrived:
                arrived["id"] = body["input"]["messages"][0]["id"]
            if method == "GET" and url.endswith("/state"):
                return next(states, None) or state_after_loss()
            return real(method, url, body, headers)

        fake._reply = reply
        return await session.say("hi")

    assert asyncio.run(go()) == "sent"
    assert len(fake.sent("POST", f"{RUNS}/stream")) == 1  # the lost one only: it had arrived
    assert fake.sent("GET", f"{RUNS}/r9/stream")  # its run was followed instead


def test_an_empty_message_sends_nothing_and_no_thread_says_so():
    fake = server(REPLY)
    session, _ = session_on(fake)
    assert asyncio.run(session.say("hi")) == "no-thread"
    session._on(THREAD_ID)
    assert asyncio.run(session.say("   ")) == "" and fake.requests == []


def test_settled_waits_out_the_run_going_and_the_message_that_waited_for_it():
    """`settled` (what a time-travel press waits on): False while a run of this session goes on past the limit;
    True only once it has ended and the message written meanwhile has gone out, as its own run, and ended."""
    fake = server(REPLY)
    conversation = parts_on(fake, RecordingView()).conversation

    async def go() -> tuple[bool, bool, list[str], bool]:
        ended = asyncio.Event()

        async def a_run() -> None:
            async with conversation.running():
                await ended.wait()

        run = asyncio.create_task(a_run())
        await asyncio.sleep(0)
        assert await conversation.say("the risk is critical") == "waiting"
        held = await conversation.settled(0.05)
        ended.set()
        settled = await conversation.settled(5)
        sent_by_then, busy = inputs(fake), conversation.busy
        await run
        return held, settled, sent_by_then, busy

    held, settled, sent, busy = asyncio.run(go())
    assert (held, settled, busy) == (False, True, False)
    assert sent == ["the risk is critical"] and conversation.outbox == []
