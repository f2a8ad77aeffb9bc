"""Time travel against the real agent server: replay, fork, and each refusal changing nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
from memory_storage import MemoryStore

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.base.device_errors import PERMISSION_DENIED, PositionError
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.headless.location import get_current_location
from sitewalk.headless.manual_position import ManualPosition
from sitewalk.headless.permissions import MANUAL_ENTRY, DevicePermissions
from sitewalk.session import DeviceHooks, InspectionSession
from sitewalk.session.travel import NOTHING_TO_REPLAY, WAITING_FOR_WRAP_UP, TimeTravel
from sitewalk.timeline import ReplayDeclined, ReplayWouldBeDeclined, RunActive, UnknownCheckpoint

DRAFT = {"inspection_id": "inspection-77", "site": "Pier 2", "inspector": "Ana Ortiz",
         "findings": ["Loose bolt"], "risk": "high"}


class View:
    def __init__(self):
        self.shown = None
        self.screens = []
        self.notices = []

    def timeline(self, shown):
        self.shown = shown
        self.notices.append(shown.notice)

    def screen(self, spec):
        self.screens.append(spec)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


async def _quick(attempt):
    await asyncio.sleep(0.05)


def _travel(agent_server, then, note=""):
    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(store))
        view = View()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=_quick))
            await session.start("inspection-77", note=note)
            assert session.parts is not None
            return await then(TimeTravel(session.client, session.parts), session, client, view, store)

    return asyncio.run(go())


def _located_registry(store, ask, locate, permission, manual=MANUAL_ENTRY, type_position=None):
    """read_local_draft over `store`, and get_current_location asking with `ask` under `permission` (name -> state);
    `manual`: the tools whose answer may be typed instead (none: a denied one is declined up front)."""

    async def query(name):
        return permission[name]

    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(store))
    registry.register("get_current_location", get_current_location(ask, locate, type_position))
    registry.permissions = DevicePermissions(query, manual=manual)
    return registry


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


def test_a_fork_while_a_run_of_this_session_goes_on_past_the_wait_is_refused(agent_server):
    async def then(travel, session, client, view, store):
        step = view.shown.steps[-1].id
        before = await _count(client, session.thread_id)
        travel.wrap_up_s = 0.2
        async with session.parts.conversation.running():  # a run of this session is going, and goes on
            with pytest.raises(RunActive):
                await travel.fork(step, {"inspection_id": "x"}, "model")
        return before, await _count(client, session.thread_id), view.notices[-2:]

    before, after, notices = _travel(agent_server, then)
    assert before == after
    assert notices == [WAITING_FOR_WRAP_UP, ""]  # told why nothing happened yet, then the refusal's turn


async def _finishing_a_run(session, seconds=1.0):
    """The session finishing a run the server has ended (the page reading its end), for `seconds`: its task,
    once it has begun."""
    finishing = asyncio.Event()

    async def wrap_up():
        async with session.parts.conversation.running():
            finishing.set()
            await asyncio.sleep(seconds)

    task = asyncio.create_task(wrap_up())
    await finishing.wait()
    return task


def test_a_fork_pressed_while_the_page_finishes_a_run_goes_on_once_it_has(agent_server):
    """The server's run has ended and the page still reads its end (a slow network): the fork waits for it
    instead of being refused for a run the inspector no longer sees, then forks once."""
    async def then(travel, session, client, view, store):
        step = view.shown.steps[-1].id
        before = await _count(client, session.thread_id)
        task = await _finishing_a_run(session)
        made = await travel.fork(step, {"inspection_id": "inspection-77b"}, "model")
        assert task.done()  # it waited for the wrap-up
        state = await client.threads.get_state(session.thread_id)
        return before, await _count(client, session.thread_id), made, state, view.notices

    before, after, made, state, notices = _travel(agent_server, then)
    assert after > before and state["values"]["inspection_id"] == "inspection-77b"
    assert made and WAITING_FOR_WRAP_UP in notices


def test_a_second_press_while_one_waits_for_the_wrap_up_is_refused_and_the_first_forks_once(agent_server):
    async def then(travel, session, client, view, store):
        step = view.shown.steps[-1].id
        task = await _finishing_a_run(session)
        first = asyncio.create_task(travel.fork(step, {"inspection_id": "inspection-77c"}, "model"))
        await asyncio.sleep(0.2)  # the first press waits
        second = TimeTravel(session.client, session.parts)  # each press makes its own, as the panel does
        with pytest.raises(RunActive):
            await second.fork(step, {"inspection_id": "inspection-77d"}, "model")
        await first
        await task
        forks = [c for c in await client.threads.get_history(session.thread_id, limit=1000)
                 if (c.get("values") or {}).get("inspection_id") in ("inspection-77c", "inspection-77d")]
        return forks

    forks = _travel(agent_server, then)
    assert {c["values"]["inspection_id"] for c in forks} == {"inspection-77c"}


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


def _cancel_while_asked(holder):
    """An ask that cancels the run while its dialog is open: the thread is left waiting on the call."""

    async def cancel_instead(purpose):
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(holder["session"].cancel()))
        await asyncio.Event().wait()  # the dialog stays open until the run is cancelled
        return False

    return cancel_instead


def test_a_replay_asking_a_denied_tool_without_manual_entry_is_refused_before_it_starts(agent_server):
    """The inspector cancelled while the position was asked (the thread still waits on it, unanswered
    here), then denied the position in the browser; here the tool has no manual entry (as a future
    permission-gated tool may not): replaying from there is refused before any run."""
    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})
    permission = {"geolocation": "prompt"}
    holder = {}

    async def locate(args):
        raise AssertionError("never reached: the inspector cancelled")

    async def go():
        registry = _located_registry(store, _cancel_while_asked(holder), locate, permission, manual={})
        async with AgentServerClient(agent_server) as client:
            session = holder["session"] = InspectionSession(client, registry, View(),
                                                            device_hooks=DeviceHooks(wait_for_network=_quick))
            await session.start("inspection-77", note="script: locate")
            travel = TimeTravel(session.client, session.parts)
            await travel.timeline.refresh()
            waiting = travel.timeline.tree.steps()[0]
            assert waiting.name.title == "Waiting for your device: your location"
            before = await client.threads.get_history(session.thread_id, limit=1000)
            permission["geolocation"] = "denied"
            with pytest.raises(ReplayWouldBeDeclined) as refused:
                await travel.replay(waiting.id)
            decided = next(s for s in travel.timeline.tree.steps() if s.name.title.startswith("Decided to ask"))
            with pytest.raises(ReplayWouldBeDeclined):
                await travel.replay(decided.id)  # the step before: its call is carried to the device too
            state = await client.threads.get_state(session.thread_id, waiting.id)
            registry.permissions = DevicePermissions(registry.permissions._query)  # the position's own manual entry
            typed = [b.typed_instead for b in await travel._blocked(waiting.id, state)]
            permission["geolocation"] = "prompt"
            ahead = await travel._blocked(waiting.id, state)
            after = await client.threads.get_history(session.thread_id, limit=1000)
            return refused.value, before, after, ahead, typed

    refused, before, after, ahead, typed = asyncio.run(go())
    assert refused.tool == "get_current_location" and refused.permission == "geolocation"
    assert refused.code == "replay_would_be_declined"
    assert after == before  # nothing started, nothing written: the thread still waits as it did
    assert ahead == []  # a permission that may still be granted is not refused
    assert typed == ["Your browser blocks the position: you will be asked to type it."]  # with manual entry


def test_a_replay_through_a_denied_position_says_it_will_be_typed_and_goes_on_with_the_typed_one(agent_server):
    """The position was read; the browser denies it since. A replay from before the model (which asks
    anew) is not refused: the preview and the timeline say the inspector will type it, and the run goes
    on with `source: manual`. When the inspector does not type it either, the replay ends ReplayDeclined."""
    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})
    permission = {"geolocation": "granted"}
    typed: list[ManualPosition | None] = [ManualPosition(59.3293, 18.0686), None]

    async def allow(purpose):
        return True

    async def locate(args):
        if permission["geolocation"] == "denied":
            raise PositionError(PERMISSION_DENIED, "User denied Geolocation")
        return {"latitude": 1.0, "longitude": 2.0, "accuracy": 5.0, "timestamp": 1.7e12}

    async def type_position(purpose, failure):
        assert failure is not None and failure.code == "permission_denied"
        return typed.pop(0)

    async def go():
        registry = _located_registry(store, allow, locate, permission, type_position=type_position)
        view = View()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=_quick))
            await session.start("inspection-77", note="script: locate")
            travel = TimeTravel(session.client, session.parts)
            while not travel.timeline.tree.exhausted:
                await travel.timeline.older()
            said = next(s for s in travel.timeline.tree.steps() if s.name.kind == "you")
            granted = (await travel.preview(said.id)).typed
            permission["geolocation"] = "denied"
            preview = await travel.preview(said.id)
            assert await travel.replay(said.id) == "replayed"
            state = await client.threads.get_state(session.thread_id)
            located = [m for m in state["values"]["messages"] if m.get("name") == "get_current_location"]
            with pytest.raises(ReplayDeclined) as declined:
                await travel.replay(said.id)
            return granted, preview, view.notices, located, declined.value

    granted, preview, notices, located, declined = asyncio.run(go())
    told = "Your browser blocks the position: you will be asked to type it."
    assert granted == () and preview.typed == (told,) and told in notices
    [message] = located  # the live branch's: typed by the inspector
    result = json.loads(message["content"])["result"]
    assert result["source"] == "manual" and (result["latitude"], result["longitude"]) == (59.3293, 18.0686)
    assert declined.code == "replay_declined" and declined.tool == "get_current_location"
    assert declined.reason == "permission_denied" and typed == []


def test_a_call_this_device_answered_is_not_refused_its_answer_is_sent_again(agent_server):
    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})
    located: list[str] = []
    permission = {"geolocation": "granted"}

    async def allow(purpose):
        return True

    async def locate(args):
        located.append(args.purpose)
        return {"latitude": 1.0, "longitude": 2.0, "accuracy": 5.0, "timestamp": 1.7e12}

    async def go():
        registry = _located_registry(store, allow, locate, permission)
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, View(), device_hooks=DeviceHooks(wait_for_network=_quick))
            await session.start("inspection-77", note="script: locate")
            travel = TimeTravel(session.client, session.parts)
            while not travel.timeline.tree.exhausted:
                await travel.timeline.older()
            decided = next(s for s in travel.timeline.tree.steps() if s.name.title.startswith("Decided to ask"))
            permission["geolocation"] = "denied"  # denied since, but the call was answered here already
            return await travel.replay(decided.id)

    assert asyncio.run(go()) == "replayed" and len(located) == 1  # the recorded answer went again, no new ask


def test_the_restore_preview_names_the_work_order_the_ticket_system_filed(agent_server, workorders_db):
    from sitewalk_agent.workorders import WorkOrders

    async def then(travel, session, client, view, store):
        await session.act("confirm", "create_work_order", "risk-1")
        await travel.timeline.refresh()
        while not travel.timeline.tree.exhausted:
            await travel.timeline.older()
        said = next(s for s in travel.timeline.tree.steps() if s.name.kind == "you")
        return await travel.preview(said.id)

    preview = _travel(agent_server, then, note="script: confirm")
    [action] = preview.actions
    row = WorkOrders(workorders_db).get(action.idempotency_key)
    assert row is not None and action.checked and action.order_id == row["id"]
    assert action.outcome == f"already created: {row['id']} — a replay returns it"


def test_after_editing_an_earlier_message_the_page_shows_the_new_branch_as_a_reopen_does(agent_server):
    """The old branch's later messages go from the transcript (a follow-up and its answer), the new run's
    show once, and the transcript and screen are what reopening the thread shows."""
    from fake_agent_server import PageView

    store = MemoryStore({draft_key("inspection-77"): json.dumps(DRAFT)})

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(store))
        view = PageView()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=_quick))
            await session.start("inspection-77")
            assert await session.say("the risk is critical") == "sent"
            before = view.transcript()
            travel = TimeTravel(session.client, session.parts)
            while not travel.timeline.tree.exhausted:
                await travel.timeline.older()
            said = next(s for s in travel.timeline.tree.steps() if s.name.kind == "you"
                        and "Start inspection" in str(s.name.title))
            await travel.edit_message(said.facts.last.id, "Start inspection inspection-77\nThe route was wrong.")
            again = PageView()
            await InspectionSession(client, registry, again).reopen(session.thread_id)
            return before, view, again

    before, view, again = asyncio.run(go())
    assert ("you", "the risk is critical") in before
    lines = view.transcript()
    assert not any("critical" in text for _, text in lines)  # the old branch's follow-up and answer are gone
    assert lines[0] == ("you", "Start inspection inspection-77\nThe route was wrong.")
    agent = [text for who, text in lines if who == "agent"]
    assert agent and len(agent) == len(set(agent))  # the new run's words, each once
    assert lines == again.transcript()
    assert view.on_screen == again.on_screen and view.on_screen["elements"]["risk"]["props"]["level"] == "high"
