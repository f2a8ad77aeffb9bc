"""Tool calls through the newer event protocol against a real `langgraph dev` (the client's two new methods).

`script: parallel` emits one message with two tool calls; both are assembled from `tool-call-delta`
events to the arguments the model meant, and a reconnect with `since` replays without doubling.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from sitewalk.agentserver import AgentServerClient, StreamError
from sitewalk.calls.event_protocol import EventStreamCalls

PROMPT = "Start inspection inspection-42 script: parallel"
EXPECTED = {
    "read_local_draft": {"inspection_id": "inspection-42"},
    "get_current_location": {"purpose": "Record where inspection inspection-42 is carried out.", "timeout_ms": 10000},
}


async def _until_interrupted(client: AgentServerClient, thread_id: str, since: int | None) -> list[dict[str, Any]]:
    """The thread's events (from after `since`) until both calls' interrupts were requested
    (the `interrupted` lifecycle event may come between the two)."""
    events: list[dict[str, Any]] = []
    parts = client.threads.stream_events(thread_id, since=since)
    async with contextlib.aclosing(parts):  # type: ignore[type-var]
        async for part in parts:
            assert isinstance(part.data, dict), part.data  # each event of the protocol is an object
            events.append(part.data)
            if sum(e["method"] == "input.requested" for e in events) == 2:
                return events
    return events


def test_event_protocol_assembles_parallel_calls_and_reconnects_by_since(agent_server):
    async def main() -> None:
        async with AgentServerClient(agent_server) as client:
            thread_id = (await client.threads.create())["thread_id"]
            listening = asyncio.create_task(_until_interrupted(client, thread_id, None))
            await asyncio.sleep(0.5)  # subscribed before the run starts
            started = await client.threads.command(thread_id, "run.start", {
                "assistant_id": "inspection", "input": {"messages": [{"role": "user", "content": PROMPT}]}})
            assert isinstance(started, dict) and started["type"] == "success" and started["result"]["run_id"]
            events = await asyncio.wait_for(listening, 60)
            reader = EventStreamCalls()
            for event in events:
                reader.feed(event)
            assert {c.name: c.args for c in reader.assembler} == EXPECTED
            requested = {e["params"]["data"]["payload"]["tool_call"]["id"] for e in events
                         if e["method"] == "input.requested"}
            assert requested == {c.call_id for c in reader.assembler}  # both calls wait on the device

            # reconnect from the middle of the deltas: the replay is taken once
            deltas = [e["seq"] for e in events if '"tool-call-delta"' in str(e).replace("'", '"')]
            since = deltas[len(deltas) // 2]
            again = EventStreamCalls()
            for event in events:
                if event["seq"] <= since + 1:  # one event past the cursor came before the drop
                    again.feed(event)
            replay = await asyncio.wait_for(_until_interrupted(client, thread_id, since), 60)
            assert replay[0]["seq"] == since + 1
            for event in replay:
                again.feed(event)
            assert {c.name: c.args for c in again.assembler} == EXPECTED

    asyncio.run(main())


def test_a_refused_command_raises(agent_server):
    async def main() -> None:
        async with AgentServerClient(agent_server) as client:
            thread_id = (await client.threads.create())["thread_id"]
            with pytest.raises(StreamError) as caught:
                await client.threads.command(thread_id, "run.start", {"input": {}})  # no assistant_id
            assert "assistant_id" in str(caught.value)

    asyncio.run(main())
