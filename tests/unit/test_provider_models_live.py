"""A real chat model through the real agent server: the server is started with `SITEWALK_MODEL=openai:…` or
`anthropic:…` and the provider's base URL pointing at the provider stand-in (tests/provider_standin), so the
real `langchain-openai` / `langchain-anthropic` clients stream each provider's own format into the agent. Driven
with the official Python SDK (`langgraph_sdk`), on the session's kind of server (SITEWALK_SERVER=inmem|aegra):

- two headless calls of one turn are pending together and answered in one resume;
- two gated calls of one turn are each reviewed on their own (one approved, one rejected);
- a screen that fails validation goes back to the model with its issues, and comes back repaired.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from langgraph_sdk import get_client
from provider_standin import ProviderStandin
from provider_standin.script import REPAIRED_TITLE, WORK_ORDER_SUBJECTS

from sitewalk_shared.contracts.envelope import ok_result

DRAFT = {"inspection_id": "x", "site": "Pier 4, north berth", "inspector": "Ana", "findings": ["rust"], "risk": "high"}
FIX = {"latitude": 59.3293, "longitude": 18.0686, "accuracy_m": 12.5, "timestamp": "2026-12-06T04:00:00Z",
       "source": "device"}


def _conversation(standin: ProviderStandin, provider: str, inspection: str) -> list[Any]:
    """What the model was sent in this test's conversation, request by request."""
    return [r.conversation for r in standin.of(provider) if inspection in r.conversation.first_user_text]


async def _start(url: str, text: str) -> tuple[Any, str, dict[str, Any]]:
    client = get_client(url=url)
    thread = await client.threads.create()
    tid = thread["thread_id"]
    start: dict[str, Any] = {"messages": [{"role": "user", "content": text}]}
    await client.runs.wait(tid, "inspection", input=start)
    return client, tid, dict(await client.threads.get_state(tid))


def _messages(state: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [m for m in state["values"]["messages"] if m["type"] == kind]


def test_two_parallel_headless_calls_are_answered_in_one_resume(provider_server, standin):
    provider, url = provider_server
    inspection = f"inspection-{uuid.uuid4().hex[:8]}"

    async def go() -> dict[str, Any]:
        client, tid, state = await _start(url, f"Start inspection {inspection}\nstandin: parallel")
        pending = state["interrupts"]
        assert sorted(p["value"]["tool_call"]["name"] for p in pending) == ["get_current_location",
                                                                              "read_local_draft"]
        answers = {}
        for p in pending:
            call = p["value"]["tool_call"]
            result = {**DRAFT, "inspection_id": inspection} if call["name"] == "read_local_draft" else FIX
            answers[p["id"]] = {call["id"]: ok_result(call["name"], call["id"], result)}
        await client.runs.wait(tid, "inspection", command={"resume": answers})  # one resume, both answers
        done = dict(await client.threads.get_state(tid))
        await client.aclose()
        return done

    state = asyncio.run(go())
    assert state["interrupts"] == [] and state["next"] == []
    assert sorted(m["name"] for m in _messages(state, "tool")) == ["get_current_location", "read_local_draft"]
    assert _messages(state, "ai")[-1]["content"] == \
        "Both answered. read_local_draft: ok. get_current_location: ok."
    [first, second] = _conversation(standin, provider, inspection)
    assert first.latest_results == [] and sorted(r.name for r in second.latest_results) == \
        ["get_current_location", "read_local_draft"]
    assert all(r.envelope["ok"] for r in second.latest_results)
    assert "measure_noise_level" not in first.tools_offered and "read_local_draft" in first.tools_offered


def _decision(value: dict[str, Any]) -> dict[str, Any]:
    named = {"args_revision": value["args_revision"], "args_hash": value["args_hash"]}
    if value["args"]["subject"] == WORK_ORDER_SUBJECTS[1]:
        return {"type": "reject", **named, "message": "not this one"}
    return {"type": "approve", **named}


def test_each_gated_call_of_one_turn_is_reviewed_on_its_own(provider_server, standin):
    provider, url = provider_server
    inspection = f"inspection-{uuid.uuid4().hex[:8]}"

    async def go() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        client, tid, state = await _start(url, f"Start inspection {inspection}\nstandin: review")
        pending = state["interrupts"]
        await client.runs.wait(tid, "inspection",
                               command={"resume": {p["id"]: _decision(p["value"]) for p in pending}})
        done = dict(await client.threads.get_state(tid))
        await client.aclose()
        return pending, done

    pending, state = asyncio.run(go())
    values = [p["value"] for p in pending]
    assert [v["type"] for v in values] == ["tool_approval"] * 2  # one interrupt per call
    assert sorted(v["args"]["subject"] for v in values) == sorted(WORK_ORDER_SUBJECTS)
    assert len({v["tool_call_id"] for v in values}) == 2
    assert state["interrupts"] == []
    by_status = {m["status"]: m for m in _messages(state, "tool")}
    assert json.loads(by_status["success"]["content"])["result"]["subject"] == WORK_ORDER_SUBJECTS[0]
    assert "not this one" in by_status["error"]["content"]
    last = _conversation(standin, provider, inspection)[-1]
    assert sorted(bool(r.envelope.get("ok")) for r in last.latest_results) == [False, True]
    assert _messages(state, "ai")[-1]["content"].startswith("Reviewed. ")


def test_a_screen_that_fails_validation_goes_back_with_its_issues_and_comes_back_repaired(provider_server, standin):
    provider, url = provider_server
    inspection = f"inspection-{uuid.uuid4().hex[:8]}"

    async def go() -> dict[str, Any]:
        client, tid, state = await _start(url, f"Start inspection {inspection}\nstandin: repair")
        await client.aclose()
        return state

    state = asyncio.run(go())
    first, told, shown = _conversation(standin, provider, inspection)
    [refused] = told.latest_results
    assert refused.name == "render_ui" and refused.envelope["ok"] is False
    assert [i["code"] for i in refused.envelope["issues"]] == ["unknown_type"]
    [accepted] = shown.latest_results
    assert accepted.envelope["ok"] is True
    assert REPAIRED_TITLE in json.dumps(state["values"]["ui_spec"])
    assert "Gauge" not in json.dumps(state["values"]["ui_spec"])
    assert _messages(state, "ai")[-1]["content"] == "The screen is shown."
