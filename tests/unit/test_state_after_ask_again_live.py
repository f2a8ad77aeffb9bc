"""Reading the state at a graph checkpoint made by a run from the site walk's own checkpoint ("ask the next
question again"), against the real agent server.

Such a run is given the walk's whole checkpoint (its `checkpoint_map`), and every graph checkpoint it writes
carries that map as its metadata's `parents`. `langgraph dev` answers `GET /threads/{id}/state/{checkpoint_id}`
of one with 500 (KeyError 'checkpoint_ns'); the client reads it the way both servers answer
(`sitewalk.agentserver.client.state_at_checkpoint_request`). The thread is driven with the official SDK
(`langgraph_sdk`), so the checkpoint is the one any client of the graph makes.
"""

from __future__ import annotations

import asyncio
import json

from memory_storage import MemoryStore
from walk_doubles import Cards, View, soon

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.session import DeviceHooks, InspectionSession, ScreenHooks
from sitewalk.session.travel import TimeTravel
from sitewalk.session.travel.edits import StepEdits
from sitewalk_agent.site_walk import WALK_NODE

DRAFT = {"inspection_id": "inspection-79", "site": "Pier 2", "inspector": "Ana Ortiz", "findings": ["Rust"],
         "risk": "low"}


async def _run(sdk, thread_id, **kwargs):
    async for _ in sdk.runs.stream(thread_id, "inspection", **kwargs):
        pass
    return await sdk.threads.get_state(thread_id)


async def _to_the_first_question(sdk, thread_id):
    """Start the site walk, answering the draft's headless tool as the device would."""
    state = await _run(sdk, thread_id, input={"messages": [
        {"type": "human", "content": "Start inspection inspection-79\nscript: site-walk"}]})
    while state["interrupts"] and state["interrupts"][0]["value"].get("type") == "tool":
        asked = state["interrupts"][0]
        call = asked["value"]["tool_call"]
        envelope = {"ok": True, "protocol": 1, "tool": call["name"], "tool_call_id": call["id"], "result": DRAFT}
        state = await _run(sdk, thread_id, command={"resume": {asked["id"]: {call["id"]: envelope}}})
    return state


async def _answer(sdk, thread_id, state, value):
    asked = state["interrupts"][0]
    answer = {"question_id": asked["value"]["question_id"], "answer": value}
    return await _run(sdk, thread_id, command={"resume": {asked["id"]: answer}})


def test_a_graph_checkpoint_of_a_run_from_the_walks_checkpoint_is_read_at_its_id(agent_server):
    from langgraph_sdk import get_client

    async def go():
        sdk = get_client(url=agent_server)
        thread_id = (await sdk.threads.create())["thread_id"]
        state = await _answer(sdk, thread_id, await _to_the_first_question(sdk, thread_id), True)
        await _answer(sdk, thread_id, state, 3)
        walk = await sdk.threads.get_history(thread_id, limit=10, checkpoint={"checkpoint_ns": WALK_NODE})
        between = next(s for s in walk if s["next"] == ["ask_corroded_bolts"])
        await _run(sdk, thread_id, input=None, checkpoint=between["checkpoint"])  # ask the next question again
        (head,) = await sdk.threads.get_history(thread_id, limit=1)
        async with AgentServerClient(agent_server) as client:
            read = await client.threads.get_state(thread_id, head["checkpoint"]["checkpoint_id"])
        return head, read

    head, read = asyncio.run(go())
    assert head["metadata"]["parents"], "the run wrote a graph checkpoint with parents (what used to answer 500)"
    assert read["checkpoint"]["checkpoint_id"] == head["checkpoint"]["checkpoint_id"]
    assert read["next"] == head["next"] == [WALK_NODE] and read["values"] == head["values"]
    assert read["metadata"] and read["created_at"] == head["created_at"]


def test_an_answer_asked_again_is_changed_at_its_step_and_the_card_shows_the_change(agent_server):
    """The app's flow: ask again between the questions, answer 7, change that answer to 12 (the redraw
    reads the graph checkpoint the asked-again run made)."""

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(MemoryStore({draft_key("inspection-79"):
                                                                           json.dumps(DRAFT)})))
        cards, view = Cards(), View()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=soon),
                                        screen_hooks=ScreenHooks(question_cards=cards))
            await session.start("inspection-79", note="script: site-walk")
            for value in ("yes", 3):
                await session.show_questions()
                await session.answer(cards.pending[0]["interrupt_id"], value)
            edits = StepEdits(TimeTravel(session.client, session.parts))
            between = next(n for s in view.shown.steps for n in s.nested if n.name.title.endswith("— yes"))
            assert await edits.ask_again(between.id) == "replayed"
            await session.answer(cards.pending[0]["interrupt_id"], 7)
            seven = next(n for s in view.shown.steps for n in s.nested if n.name.title.endswith("— 7"))
            await edits.change_answer(seven.id, 12)
            state = await client.threads.get_state(session.thread_id)
            assert cards.refused == []
            return state["values"]["ui_spec"]["elements"]["card"]["props"]["findings"], cards.pending

    findings, asked = asyncio.run(go())
    assert findings == ["Rust", "Handrail secure: yes", "Corroded bolts: 12"]
    assert asked == []  # changed, not asked again
