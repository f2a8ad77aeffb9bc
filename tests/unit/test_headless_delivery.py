"""Contract handshake (both directions) and exactly-once answers, pure and against the real agent server."""

from __future__ import annotations

import asyncio
import dataclasses
import json

from memory_storage import MemoryStore
from test_session_live import RecordingView

from sitewalk.agentserver.client import AgentServerClient, pending_interrupts
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.headless.delivery import AnswerBook, client_mismatch, mismatch_of, server_mismatches
from sitewalk.session import DeviceHooks, InspectionSession, ScreenHooks
from sitewalk_shared.contracts.tools import PROTOCOL_VERSION, READ_LOCAL_DRAFT, TOOL_CONTRACTS

# The same tool as an older build of the client knew it: another description, so another digest.
OLD_READ = dataclasses.replace(READ_LOCAL_DRAFT, description="Read the draft (v0).")
OLD_CONTRACTS = {**TOOL_CONTRACTS, OLD_READ.name: OLD_READ}


def _interrupt(digest: str, protocol: str = PROTOCOL_VERSION) -> dict:
    return {"type": "tool", "tool_call": {"id": "call-1", "name": "read_local_draft",
                                          "args": {"inspection_id": "inspection-42"}},
            "contract": {"protocol": protocol, "digest": digest}}


# --- pure ----------------------------------------------------------------------------------------


def test_same_digest_is_no_mismatch():
    assert client_mismatch(_interrupt(READ_LOCAL_DRAFT.digest)) is None


def test_other_digest_is_a_contract_mismatch_envelope_naming_both():
    envelope = client_mismatch(_interrupt(READ_LOCAL_DRAFT.digest), OLD_CONTRACTS)
    assert envelope["ok"] is False and envelope["tool_call_id"] == "call-1"
    assert envelope["error"]["code"] == "contract_mismatch"
    detail = envelope["error"]["detail"]
    assert detail["server_digest"] == READ_LOCAL_DRAFT.digest and detail["client_digest"] == OLD_READ.digest
    mismatch = mismatch_of(envelope)
    assert (mismatch.tool, mismatch.server_digest, mismatch.client_digest, mismatch.found_by) == (
        "read_local_draft", READ_LOCAL_DRAFT.digest, OLD_READ.digest, "client")


def test_other_protocol_is_a_mismatch_even_with_the_same_digest():
    envelope = client_mismatch(_interrupt(READ_LOCAL_DRAFT.digest, protocol="sitewalk.headless/2"))
    assert envelope["error"]["detail"]["server_protocol"] == "sitewalk.headless/2"


def test_no_contract_block_or_tool_not_implemented_is_not_a_mismatch():
    value = _interrupt("0" * 16)
    assert client_mismatch({k: v for k, v in value.items() if k != "contract"}) is None
    assert client_mismatch(value, implemented={"save_local_draft"}) is None  # registry says not_implemented


def test_server_mismatches_read_from_the_states_tool_messages():
    envelope = client_mismatch(_interrupt("f" * 16))
    state = {"values": {"messages": [
        {"type": "human", "content": "hi"},
        {"type": "tool", "status": "error", "tool_call_id": "call-1", "content": json.dumps(envelope)},
        {"type": "tool", "status": "error", "tool_call_id": "call-2", "content": "not json"},
    ]}}
    [found] = server_mismatches(state)
    assert found.tool_call_id == "call-1" and found.server_digest == "f" * 16


def test_answer_book_records_then_marks_delivered():
    async def go():
        store = MemoryStore()
        book = AnswerBook(store)
        envelope = {"ok": True, "tool": "t", "tool_call_id": "call-9", "result": {}}
        assert await book.get("thread-1", "call-9") is None
        await book.record("thread-1", "int-1", envelope)
        assert (await book.get("thread-1", "call-9"))["delivered"] is False
        await book.delivered("thread-1", "call-9")
        record = await book.get("thread-1", "call-9")
        assert record == {"interrupt_id": "int-1", "envelope": envelope, "delivered": True}
        assert await book.get("thread-2", "call-9") is None  # per thread
        store.data[book.key("thread-3", "call-9")] = "{broken"
        assert await book.get("thread-3", "call-9") is None

    asyncio.run(go())


# --- against the real agent server ---------------------------------------------------------------


class CountingRegistry(HeadlessToolRegistry):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.runs: list[str] = []

    async def run(self, tool_call):
        self.runs.append(tool_call["id"])
        return await super().run(tool_call)


def _registry(contracts=TOOL_CONTRACTS) -> CountingRegistry:
    registry = CountingRegistry(contracts)
    draft = {draft_key("inspection-42"): json.dumps({"site": "Pier 4", "risk": "medium"})}
    registry.register("read_local_draft", read_local_draft(MemoryStore(draft)))
    return registry


def test_server_side_mismatch_an_old_client_sends_its_digest_and_the_agent_refuses(agent_server):
    """The client's manifest (sent with the run) names an older contract: the graph never asks it."""

    async def go():
        registry = _registry(OLD_CONTRACTS)
        seen: list = []
        session = InspectionSession(AgentServerClient(agent_server), registry, RecordingView(),
                                    screen_hooks=ScreenHooks(on_contract_mismatch=seen.append))
        await session.start("inspection-42")
        return registry, session, seen

    registry, session, seen = asyncio.run(go())
    assert registry.runs == []  # the tool was not run: the agent ended the call itself
    [mismatch] = seen
    assert mismatch.found_by == "server" and mismatch.tool == "read_local_draft"
    assert (mismatch.server_digest, mismatch.client_digest) == (READ_LOCAL_DRAFT.digest, OLD_READ.digest)


def test_client_side_mismatch_a_thread_started_without_a_manifest_is_answered_contract_mismatch(agent_server):
    """Another client (e.g. the official SDK) started the thread without `client_tools`; this client's
    contract is older than the interrupt's: it answers contract_mismatch instead of running the tool."""

    async def go():
        client = AgentServerClient(agent_server)
        thread = await client.threads.create()
        async for _ in client.runs.stream(thread["thread_id"], "inspection", input={
                "messages": [{"role": "user", "content": "Start inspection inspection-42"}]}):
            pass
        registry = _registry(OLD_CONTRACTS)
        view = RecordingView()
        seen: list = []
        session = InspectionSession(client, registry, view, screen_hooks=ScreenHooks(on_contract_mismatch=seen.append))
        waited = await session.rejoin(thread["thread_id"])
        state = await client.threads.get_state(thread["thread_id"])
        return registry, seen, waited, state, view

    registry, seen, waited, state, view = asyncio.run(go())
    assert waited and registry.runs == []
    assert [m.found_by for m in seen] == ["client"]
    assert seen[0].client_digest == OLD_READ.digest and seen[0].server_digest == READ_LOCAL_DRAFT.digest
    tool_messages = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert json.loads(tool_messages[0]["content"])["error"]["code"] == "contract_mismatch"
    assert "failed" in view.states("read_local_draft")


def test_rejoin_resends_the_recorded_answer_and_never_runs_the_tool_again(agent_server):
    """A page answered (recorded in the book) and was reloaded before the server took it: the new
    page finds the interrupt still pending and sends the recorded envelope, without running the tool."""

    async def go():
        client = AgentServerClient(agent_server)
        thread = await client.threads.create()
        async for _ in client.runs.stream(thread["thread_id"], "inspection", input={
                "messages": [{"role": "user", "content": "Start inspection inspection-42"}],
                "client_tools": _registry().manifest()}):
            pass
        [pending] = pending_interrupts(await client.threads.get_state(thread["thread_id"]))
        call = pending["value"]["tool_call"]
        book = AnswerBook(MemoryStore())
        recorded = {"ok": True, "protocol": 1, "tool": "read_local_draft", "tool_call_id": call["id"],
                    "result": {"inspection_id": "inspection-42", "site": "Recorded before the reload"}}
        await book.record(thread["thread_id"], pending["id"], recorded)  # the first page, then the reload
        registry = _registry()
        session = InspectionSession(client, registry, RecordingView(), device_hooks=DeviceHooks(book=book))
        await session.rejoin(thread["thread_id"])
        again = await session.rejoin(thread["thread_id"])  # nothing pending any more: nothing to do
        state = await client.threads.get_state(thread["thread_id"])
        return registry, state, again

    registry, state, again = asyncio.run(go())
    assert registry.runs == [] and again is False
    tool_messages = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert json.loads(tool_messages[0]["content"])["result"]["site"] == "Recorded before the reload"
    assert pending_interrupts(state) == []


def test_the_same_interrupt_delivered_twice_is_answered_once(agent_server):
    """The state lists the same tool call under two interrupt entries (a duplicate delivery): the tool runs once."""

    async def go():
        client = AgentServerClient(agent_server)
        session = InspectionSession(client, _registry(), RecordingView(),
                                    device_hooks=DeviceHooks(book=AnswerBook(MemoryStore())))
        real_get_state = client.threads.get_state

        async def doubled(thread_id, **kwargs):
            state = await real_get_state(thread_id, **kwargs)
            state["interrupts"] = list(state.get("interrupts") or []) * 2
            for task in state.get("tasks") or []:
                task["interrupts"] = list(task.get("interrupts") or []) * 2
            return state

        client.threads.get_state = doubled
        await session.start("inspection-42")
        return session

    session = asyncio.run(go())
    assert session.registry.runs.count(session.registry.runs[0]) == 1
    assert len(session.registry.runs) == len(set(session.registry.runs))


# --- the offline outbox --------------------------------------------------------------------------


def _flaky_resumes(client, *, deliver_first: bool, failures: int = 1):
    """Make the next `failures` resume streams fail as the browser's fetch does offline. With
    `deliver_first` the request reaches the server (its stream is read to the end) and only the
    answer is lost: the outcome the client cannot know."""
    from sitewalk.base.server_errors import ServerUnreachable

    real_stream = client.runs.stream
    sent: list[dict] = []
    left = [failures]

    async def stream(thread_id, assistant_id, **kwargs):
        if "command" in kwargs:
            sent.append(kwargs["command"]["resume"])
            if left[0] > 0:
                left[0] -= 1
                if deliver_first:
                    async for _ in real_stream(thread_id, assistant_id, **kwargs):
                        pass
                raise ServerUnreachable(client.base_url, "TypeError: Failed to fetch")
        async for part in real_stream(thread_id, assistant_id, **kwargs):
            yield part

    client.runs.stream = stream
    return sent


def _outbox_session(agent_server, deliver_first):
    async def go():
        client = AgentServerClient(agent_server)
        sent = _flaky_resumes(client, deliver_first=deliver_first)
        book = AnswerBook(MemoryStore())
        outbox: list[int] = []
        waits: list[int] = []

        async def wait_for_network(attempt):
            waits.append(attempt)

        session = InspectionSession(client, _registry(), RecordingView(),
                                    device_hooks=DeviceHooks(book=book, wait_for_network=wait_for_network),
                                    screen_hooks=ScreenHooks(on_outbox=outbox.append))
        await session.start("inspection-42")
        state = await client.threads.get_state(session.thread_id)
        [call_id] = session.registry.runs
        return session, sent, outbox, waits, state, await book.get(session.thread_id, call_id)

    return asyncio.run(go())


def test_an_answer_that_cannot_be_sent_waits_in_the_outbox_and_is_delivered_once(agent_server):
    session, sent, outbox, waits, state, record = _outbox_session(agent_server, deliver_first=False)
    assert outbox == [1, 0] and waits == [1]
    assert len(sent) == 2 and sent[0] == sent[1]  # the same envelope, sent again once the network is back
    assert len(session.registry.runs) == 1  # the tool ran once
    tool_messages = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "read_local_draft"]
    assert len(tool_messages) == 1 and json.loads(tool_messages[0]["content"])["ok"] is True
    assert record["delivered"] is True


def test_an_answer_whose_outcome_is_unknown_is_checked_against_the_state_and_not_sent_again(agent_server):
    session, sent, outbox, waits, state, record = _outbox_session(agent_server, deliver_first=True)
    assert len(sent) == 1  # the server had taken it: the state no longer waits on that interrupt
    assert outbox == [1, 0]
    tool_messages = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "read_local_draft"]
    assert len(tool_messages) == 1 and pending_interrupts(state) == []
    assert record["delivered"] is True


# --- cancellation --------------------------------------------------------------------------------


def test_cancel_ends_the_pending_tool_as_cancelled_and_sends_nothing(agent_server):
    async def go():
        client = AgentServerClient(agent_server)
        started, ended = asyncio.Event(), []

        async def hangs(_args):
            started.set()
            try:
                await asyncio.Event().wait()  # e.g. a purpose dialog nobody answers
            except asyncio.CancelledError:
                ended.append("cancelled")
                raise

        registry = HeadlessToolRegistry(timeout_s=60)
        registry.register("read_local_draft", hangs)
        view = RecordingView()
        session = InspectionSession(client, registry, view)
        sent = _flaky_resumes(client, deliver_first=False, failures=0)
        run = asyncio.ensure_future(session.start("inspection-42"))
        await asyncio.wait_for(started.wait(), 30)
        await session.cancel()
        await asyncio.wait_for(run, 30)
        state = await client.threads.get_state(session.thread_id)
        return session, view, ended, sent, state

    session, view, ended, sent, state = asyncio.run(go())
    assert ended == ["cancelled"] and session.cancelled
    assert sent == []  # no answer left the device
    assert view.states("read_local_draft")[-1] == "failed"
    assert "cancelled" in [e for e in view.events if e[0] == "tool_call"][-1][3]
    assert len(pending_interrupts(state)) == 1  # the thread keeps waiting; its history is intact
