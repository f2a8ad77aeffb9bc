"""Time travel against the real agent server: replay, fork, and each refusal changing nothing."""

from __future__ import annotations

import asyncio
import json

import pytest

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless import HeadlessToolRegistry, MemoryStore, draft_key, read_local_draft
from sitewalk.session import Hooks, InspectionSession
from sitewalk.session.travel import NOTHING_TO_REPLAY, TimeTravel
from sitewalk.timeline import RunActive, UnknownCheckpoint

DRAFT = {"inspection_id": "inspection-77", "site": "Pier 2", "inspector": "Ana Ortiz",
         "findings": ["Loose bolt"], "risk": "high"}


class View:
    def __init__(self):
        self.shown = None
        self.screens = []

    def timeline(self, shown):
        self.shown = shown

    def screen(self, spec):
        self.screens.append(spec)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


async def _quick(attempt):
    await asyncio.sleep(0.05)


def _travel(agent_server, then):
    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(store))
        view = View()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, Hooks(wait_for_network=_quick))
            await session.start("inspection-77")
            assert session.parts is not None
            return await then(TimeTravel(session.parts), session, client, view, store)

    return asyncio.run(go())


async def _count(client, thread_id):
    return len(await client.threads.get_history(thread_id, limit=1000))


def test_replay_from_before_the_read_reads_the_corrected_draft(agent_server):
    async def then(travel, session, client, view, store):
        steps = view.shown.steps
        said = next(s for s in steps if s.name.kind == "you")
        await store.set(draft_key("inspection-77"), json.dumps({**DRAFT, "site": "Pier 9 (corrected)"}))
        # From before the agent decided to read: a later checkpoint would reuse the call (and its answer).
        assert await travel.replay(said.id) == "replayed"
        state = await client.threads.get_state(session.thread_id)
        return state, view

    state, view = _travel(agent_server, then)
    assert "Pier 9 (corrected)" in json.dumps(state["values"]["ui_spec"])
    assert len(view.shown.branches) == 2  # the first reading stays on its own branch
    old = view.shown.branches[1]
    assert not old.live


def test_replay_from_a_final_checkpoint_is_a_no_op(agent_server):
    async def then(travel, session, client, view, store):
        head = view.shown.live_head
        before = await _count(client, session.thread_id)
        result = await travel.replay(head)
        return result, before, await _count(client, session.thread_id), view.shown.notice

    result, before, after, notice = _travel(agent_server, then)
    assert result == "nothing" and before == after and notice == NOTHING_TO_REPLAY


def test_a_checkpoint_of_another_thread_or_none_is_refused_and_changes_nothing(agent_server):
    async def then(travel, session, client, view, store):
        other = await client.threads.create(metadata={"inspection_id": "other"})
        async for _ in client.runs.stream(other["thread_id"], "inspection", input={"messages": [
                {"type": "human", "content": "hello"}]}):
            pass
        foreign = (await client.threads.get_state(other["thread_id"]))["checkpoint"]["checkpoint_id"]
        before = await _count(client, session.thread_id)
        errors = []
        for bad in (foreign, "1f000000-0000-6000-8000-000000000000"):
            for attempt in (travel.replay(bad), travel.fork(bad, {"inspection_id": "x"}, "model")):
                with pytest.raises(UnknownCheckpoint) as caught:
                    await attempt
                errors.append(caught.value.code)
        return errors, before, await _count(client, session.thread_id)

    errors, before, after = _travel(agent_server, then)
    assert errors == ["unknown_checkpoint"] * 4 and before == after


def test_a_fork_while_a_run_is_active_is_refused(agent_server):
    async def then(travel, session, client, view, store):
        step = view.shown.steps[-1].id
        before = await _count(client, session.thread_id)
        async with session.parts.conversation.running():  # a run of this session is going
            with pytest.raises(RunActive):
                await travel.fork(step, {"inspection_id": "x"}, "model")
        return before, await _count(client, session.thread_id)

    before, after = _travel(agent_server, then)
    assert before == after


def test_editing_the_first_message_makes_a_branch_and_keeps_the_old_one(agent_server):
    async def then(travel, session, client, view, store):
        said = next(s for s in view.shown.steps if s.name.kind == "you")
        old_head = view.shown.live_head
        await travel.edit_message(said.facts.last.id, "Start inspection inspection-77\nThe route was wrong.")
        while await travel.timeline.older() and travel.timeline.tree.exhausted is False:
            pass
        shown = view.shown
        old = next(b for b in shown.branches if b.head == old_head)
        return shown, old, travel.timeline.show_branch(old.head)

    shown, old, old_shown = _travel(agent_server, then)
    assert shown.branches[0].live and shown.branches[0].title.endswith("(edited)")
    assert "route was wrong" in shown.branches[0].title
    assert not old.live and old_shown.steps[0].id == old.head and not old_shown.on_live_branch
    assert any(s.name.title == "Read your draft" for s in old_shown.steps)
