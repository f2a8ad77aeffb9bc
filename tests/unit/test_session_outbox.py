"""Outbox with a fake transport: an answer is taken by the server exactly once, whatever the network does."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    INTERRUPT,
    OFFLINE,
    RUNS,
    STATE,
    FakeTransport,
    RecordingView,
    finished_run,
    waiting_state,
)
from sessions_for_tests import resumes, stream_on

from sitewalk.session.outbox import Outbox

ANSWER = {"call_1": {"ok": True, "tool": "read_local_draft", "tool_call_id": "call_1", "result": {}}}
OTHER = {"id": "int-2", "value": {"type": "tool", "tool_call": {"id": "call_2", "name": "get_current_location",
                                                                 "args": {}}}}


def deliver(fake: FakeTransport, resume: dict[str, Any]) -> tuple[list[int], list[int], RecordingView]:
    told: list[int] = []
    waits: list[int] = []

    async def wait(attempt: int) -> None:
        waits.append(attempt)

    async def go():
        view = RecordingView()
        stream = stream_on(fake, view, wait)
        await Outbox(stream.client, stream.thread, stream, wait, on_waiting=told.append).deliver(resume)
        return view

    return told, waits, asyncio.run(go())


def test_an_answer_that_could_not_be_sent_waits_for_the_network_and_is_delivered_once():
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", OFFLINE, finished_run())
            .on("GET", STATE, (200, waiting_state(INTERRUPT))))  # the server still waits on it
    told, waits, view = deliver(fake, {"int-1": ANSWER})
    assert resumes(fake) == [{"int-1": ANSWER}, {"int-1": ANSWER}]  # the same answer, sent again once
    assert told == [1, 0] and waits == [1]
    assert "The draft says Pier 4." in view.texts.values()


def test_an_answer_the_server_took_before_the_reply_was_lost_is_not_sent_again_and_its_run_is_followed():
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", OFFLINE)
            .on("GET", STATE, (200, waiting_state()))  # no interrupt pending: the lost request arrived
            .on("GET", RUNS, (200, [{"run_id": "r2"}]))
            .on("GET", f"{RUNS}/r2/stream", finished_run()))
    told, _, view = deliver(fake, {"int-1": ANSWER})
    assert resumes(fake) == [{"int-1": ANSWER}]  # sent once
    assert len(fake.sent("GET", f"{RUNS}/r2/stream")) == 1 and "The draft says Pier 4." in view.texts.values()
    assert told == [1, 0]


def test_only_the_interrupts_the_thread_still_waits_on_are_sent_again():
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", OFFLINE, finished_run())
            .on("GET", STATE, (200, waiting_state(OTHER))))
    deliver(fake, {"int-1": ANSWER, "int-2": {"call_2": {"ok": True}}})
    assert resumes(fake)[1] == {"int-2": {"call_2": {"ok": True}}}


def test_while_the_server_stays_out_of_reach_nothing_is_assumed_and_the_same_is_sent_again():
    fake = (FakeTransport().on("POST", f"{RUNS}/stream", OFFLINE, OFFLINE, finished_run())
            .on("GET", STATE, OFFLINE, (200, waiting_state(INTERRUPT))))
    told, waits, _ = deliver(fake, {"int-1": ANSWER})
    assert resumes(fake) == [{"int-1": ANSWER}] * 3 and waits == [1, 2] and told == [1, 1, 0]


def test_a_delivery_that_goes_through_at_once_tells_nothing_about_an_outbox():
    fake = FakeTransport().on("POST", f"{RUNS}/stream", finished_run())
    told, waits, _ = deliver(fake, {"int-1": ANSWER})
    assert told == [] and waits == [] and fake.sent("GET", STATE) == []
