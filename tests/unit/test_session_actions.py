"""UiActions with a fake transport: a press is sent once; its outcome shows on the button and in the transcript."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    HISTORY,
    OFFLINE,
    RUNS,
    STATE,
    FakeTransport,
    RecordingView,
    sse,
    waiting_state,
)
from sessions_for_tests import parts_on, resumes

from sitewalk.session.actions import action_request

IDENTITY = {"message_id": "m1", "tool_call_id": "call_ui", "revision": 1}
WAITING = {"id": "int-ui", "value": {"type": "ui_action_request", "identity": IDENTITY,
                                     "actions": [{"element_id": "confirm", "action": "create_work_order"}]}}
KEY = "ui:call_ui:confirm:create_work_order"
ORDER = "work-order:inspection-42:risk-1"
DONE = {"action": "create_work_order", "element_id": "confirm", "idempotency_key": KEY, "identity": IDENTITY,
        "result": {"work_order": ORDER, "created": True}}
SAID = {"type": "ai", "id": "m5", "content": f"Work order {ORDER} created."}  # written whole by the node
ACTION_RUN = sse(("metadata", {"run_id": "r5"}), ("messages", [SAID, {"langgraph_node": "actions"}]),
                 ("values", {"messages": [SAID], "ui_actions": [DONE], "ui_action_result": {**DONE, "status": "done"}}))
AFTER = waiting_state(WAITING, values={"ui_actions": [DONE], "ui_action_result": {**DONE, "status": "done"}})


def press(fake: FakeTransport, presses: int = 1) -> tuple[list[Any], RecordingView, list[int]]:
    fake.on("POST", HISTORY, (200, []))
    view = RecordingView()
    waits: list[int] = []

    async def wait(attempt: int) -> None:
        waits.append(attempt)

    async def go():
        parts = parts_on(fake, view, wait_for_network=wait)
        return await asyncio.gather(*(parts.actions.act("confirm", "create_work_order") for _ in range(presses)))

    return asyncio.run(go()), view, waits


def test_a_press_resumes_the_waiting_interrupt_and_its_outcome_shows_on_the_button_and_in_the_transcript():
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(WAITING)), (200, AFTER))
            .on("POST", f"{RUNS}/stream", ACTION_RUN))
    [result], view, _ = press(fake)
    assert resumes(fake) == [{"int-ui": {"type": "ui_action", "action": "create_work_order",
                                              "identity": IDENTITY, "element_id": "confirm", "idempotency_key": KEY}}]
    assert result["status"] == "done" and result["result"]["work_order"] == ORDER
    assert ("action_result", "confirm", "done") in view.events
    assert f"create_work_order: done ({ORDER})" in view.statuses()
    assert view.texts["m5"] == f"Work order {ORDER} created."  # the agent's word, in the transcript


def test_a_press_without_a_network_waits_for_it_and_is_sent_once():
    fake = (FakeTransport().on("GET", STATE, OFFLINE, (200, waiting_state(WAITING)), (200, AFTER))
            .on("POST", f"{RUNS}/stream", ACTION_RUN))
    [result], view, waits = press(fake)
    assert result["status"] == "done" and len(resumes(fake)) == 1 and waits == [1]
    assert ("action_result", "confirm", "waiting") in view.events
    assert any("waiting for the network" in s for s in view.statuses())


def test_a_press_whose_reply_was_lost_shows_the_recorded_outcome_and_is_not_sent_again():
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(WAITING)), (200, AFTER))
            .on("POST", f"{RUNS}/stream", OFFLINE)  # reached the agent; the answer never came
            .on("GET", RUNS, (200, [{"run_id": "r5"}]))
            .on("GET", f"{RUNS}/r5/stream", ACTION_RUN))
    [result], view, _ = press(fake)
    assert len(resumes(fake)) == 1  # not sent again: the state has the key's record
    assert result == {**DONE, "status": "done"} and ("action_result", "confirm", "done") in view.events
    assert view.texts["m5"] == f"Work order {ORDER} created."  # the run it started, followed


def test_a_press_when_the_agent_does_not_wait_sends_nothing():
    fake = FakeTransport().on("GET", STATE, (200, waiting_state()))
    [result], view, _ = press(fake)
    assert result is None and resumes(fake) == []
    assert "create_work_order: the agent is not waiting for a decision" in view.statuses()


def test_a_second_press_while_the_first_is_on_its_way_does_nothing():
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(WAITING)), (200, AFTER))
            .on("POST", f"{RUNS}/stream", ACTION_RUN))
    results, _, _ = press(fake, presses=2)
    assert sorted(r is None for r in results) == [False, True] and len(resumes(fake)) == 1


def test_the_request_names_the_screen_shown_else_the_one_the_agent_waits_on():
    state: Any = waiting_state(WAITING)
    shown = {"tool_call_id": "call_new", "message_id": "m9", "revision": 2}
    assert action_request(state, shown, "confirm", "create_work_order").body["idempotency_key"] == \
        "ui:call_new:confirm:create_work_order"
    request = action_request(state, None, "confirm", "create_work_order")
    assert request.body["identity"] == IDENTITY and request.waiting == WAITING and request.taken is None
    assert action_request(AFTER, None, "confirm", "create_work_order").taken == DONE
    assert action_request(waiting_state(), None, "confirm", "x").waiting is None
