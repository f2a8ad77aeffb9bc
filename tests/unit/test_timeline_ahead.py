"""A replay whose device tool is now declined, known before it starts: the calls ahead of a step
(shapes of the real server's `get_state` at a checkpoint) and this device's denied permissions; a
denied position is typed instead (told up front), a denied tool without manual entry is refused."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from sitewalk.headless.permissions import DevicePermissions
from sitewalk.session.blocked import blocked_ahead, refuse_declined, typed_notices
from sitewalk.timeline import ReplayDeclined, ReplayWouldBeDeclined, called_after, device_calls_ahead
from sitewalk.timeline.facts import LastMessage

DEVICE = {"read_local_draft", "get_current_location", "attach_photo"}
HUMAN = {"type": "human", "id": "h1", "content": "Start inspection inspection-77\nscript: locate"}
LOCATE = {"type": "ai", "id": "a1", "content": "", "tool_calls": [
    {"id": "call_loc", "name": "get_current_location", "args": {"purpose": "Record where"}}]}
BOTH = {"type": "ai", "id": "a2", "content": "", "tool_calls": [
    {"id": "call_draft", "name": "read_local_draft", "args": {}}, {"id": "call_ui", "name": "render_ui", "args": {}}]}
ANSWER = {"type": "tool", "name": "get_current_location", "tool_call_id": "call_loc", "content": "{}"}


def _interrupt(call_id: str, name: str) -> dict:
    return {"id": f"int-{call_id}", "value": {"type": "tool", "tool_call": {"id": call_id, "name": name, "args": {}}}}


def _state(messages, next_=(), tasks=()):
    return {"values": {"messages": list(messages)}, "next": list(next_), "tasks": list(tasks)}


def test_the_step_where_the_agent_decided_goes_on_to_ask_the_device():
    state = _state([HUMAN, LOCATE], next_=["ReviewMiddleware.after_model"])
    assert device_calls_ahead(state, DEVICE) == [("get_current_location", "call_loc")]


def test_only_device_tools_count_and_each_call_once():
    state = _state([HUMAN, BOTH], next_=["tools", "tools"],
                   tasks=[{"name": "tools", "interrupts": [_interrupt("call_draft", "read_local_draft")]}])
    assert device_calls_ahead(state, DEVICE) == [("read_local_draft", "call_draft")]  # render_ui runs on the server


def test_a_task_that_has_its_answer_is_reused_by_the_replay_not_asked_again():
    answered = {"name": "tools", "interrupts": [_interrupt("call_loc", "get_current_location")],
                "result": {"messages": [ANSWER]}}
    assert device_calls_ahead(_state([HUMAN, LOCATE], next_=["tools"], tasks=[answered]), DEVICE) == []
    waiting = {**answered, "result": None}  # still waiting (or left waiting on a branch): asked again
    assert device_calls_ahead(_state([HUMAN, LOCATE], next_=["tools"], tasks=[waiting]), DEVICE) == [
        ("get_current_location", "call_loc")]


def test_nothing_is_known_before_the_model_runs_or_after_the_answer():
    assert device_calls_ahead(_state([HUMAN], next_=["model"]), DEVICE) == []  # the model decides: the run tells
    assert device_calls_ahead(_state([HUMAN, LOCATE, ANSWER], next_=["model"]), DEVICE) == []
    assert device_calls_ahead(_state([HUMAN, LOCATE]), DEVICE) == []  # no next: nothing runs
    assert device_calls_ahead({"values": None, "next": None, "tasks": None}, DEVICE) == []


def _permissions(states: dict[str, str], asked: list[str] | None = None) -> DevicePermissions:
    async def query(name: str) -> str:
        if asked is not None:
            asked.append(name)
        if name not in states:
            raise TypeError(f"unknown permission {name}")
        return states[name]

    return DevicePermissions(query)


def test_only_a_denied_permission_refuses_and_unknown_is_not_a_refusal():
    asked: list[str] = []
    denied = _permissions({"geolocation": "denied"}, asked)
    assert asyncio.run(denied.denied("get_current_location")) == "geolocation"
    assert asyncio.run(denied.denied("read_local_draft")) is None and asked == ["geolocation"]  # no permission needed
    for state in ("granted", "prompt", "unknown"):
        assert asyncio.run(_permissions({"geolocation": state}).denied("get_current_location")) is None
    assert asyncio.run(_permissions({}).denied("get_current_location")) is None  # the browser cannot say


def test_the_refusal_is_typed_and_says_what_to_do():
    error = ReplayWouldBeDeclined("get_current_location", "call_loc", "geolocation")
    assert isinstance(error, ReplayDeclined) and error.code == "replay_would_be_declined"
    assert error.tool_call_id == "call_loc" and "nothing was started" in str(error)
    with pytest.raises(ReplayDeclined):
        raise error


def _step(last: LastMessage | None) -> SimpleNamespace:
    return SimpleNamespace(facts=SimpleNamespace(last=last))


def test_the_device_tools_the_replaced_steps_called_are_what_a_replay_asks_anew():
    asked = LastMessage("a1", "ai", "", calls=(("get_current_location", "call_1"), ("render_ui", "call_2")))
    again = LastMessage("a3", "ai", "", calls=(("get_current_location", "call_9"), ("read_local_draft", "call_8")))
    answer = LastMessage("t1", "tool", "{}", tool_name="get_current_location", tool_call_id="call_1")
    replaced = [_step(again), _step(answer), _step(None), _step(asked)]  # newest first, as the preview lists them
    assert called_after(replaced, DEVICE) == ["get_current_location", "read_local_draft"]
    assert called_after([], DEVICE) == []


class _Answers:
    """What `blocked_ahead` reads of the session's answers: the registry's permissions and what was answered."""

    def __init__(self, permissions: DevicePermissions, answered: frozenset[str] = frozenset()):
        self.registry = SimpleNamespace(permissions=permissions)
        self._answered = answered

    async def answered(self, call_id: str) -> bool:
        return call_id in self._answered


TOLD = "Your browser blocks the position: you will be asked to type it."


def test_a_denied_position_is_typed_instead_and_said_once_not_refused():
    answers = _Answers(_permissions({"geolocation": "denied"}), answered=frozenset({"call_old"}))
    calls = [("get_current_location", "call_loc"), ("get_current_location", ""), ("get_current_location", "call_old"),
             ("read_local_draft", "call_draft")]
    blocked = asyncio.run(blocked_ahead(answers, calls))
    assert [(b.tool, b.call_id, b.permission) for b in blocked] == [
        ("get_current_location", "call_loc", "geolocation"), ("get_current_location", "", "geolocation")]
    refuse_declined(blocked)  # the position may be typed: no refusal
    assert typed_notices(blocked) == (TOLD,)
    granted = asyncio.run(blocked_ahead(_Answers(_permissions({"geolocation": "granted"})), calls))
    assert granted == [] and typed_notices(granted) == ()


def test_a_denied_tool_without_manual_entry_is_still_refused_up_front():
    """A future permission-gated tool with no manual entry (here a test mapping: a camera-only scan)."""

    async def query(name: str) -> str:
        return "denied"

    permissions = DevicePermissions(query, needs={"get_current_location": "geolocation", "scan_tag": "camera"})
    assert permissions.typed_instead("get_current_location") == TOLD and permissions.typed_instead("scan_tag") is None
    blocked = asyncio.run(blocked_ahead(_Answers(permissions), [("get_current_location", "c1"), ("scan_tag", "c2")]))
    with pytest.raises(ReplayWouldBeDeclined) as refused:
        refuse_declined(blocked)
    assert (refused.value.tool, refused.value.tool_call_id, refused.value.permission) == ("scan_tag", "c2", "camera")
    # what the model would call anew is only likely: the run finds out (ReplayDeclined), not refused up front
    refuse_declined(asyncio.run(blocked_ahead(_Answers(permissions), [("scan_tag", "")])))
