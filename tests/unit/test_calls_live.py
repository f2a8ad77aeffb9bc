"""Tool calls through the newer event protocol against a real `langgraph dev` (the client's two new methods).

`script: parallel` emits one message with two tool calls; the client delivers their `tool-call-delta`
events, whose text joined per call is the arguments the model meant, and a reconnect with `since` replays
from the event after it. (The product reads the run stream, `calls.run_stream`; the event protocol's
reader went with issue 28, so the join is done here, for the client's sake.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from sitewalk.agentserver import AgentServerClient, StreamError

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


def _joined_args(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each call's `tool-call-delta` text joined (per block index of the one message), parsed, by tool name."""
    names: dict[int, str] = {}
    texts: dict[int, list[str]] = {}
    for event in events:
        data = (event.get("params") or {}).get("data") or {}
        if event.get("method") != "messages" or not isinstance(data, dict):
            continue
        content, delta = data.get("content") or {}, data.get("delta") or {}
        if data.get("event") == "content-block-start" and content.get("type") == "tool_call_chunk":
            names[data["index"]] = content["name"]
        elif data.get("event") == "content-block-delta" and delta.get("type") == "tool-call-delta":
            texts.setdefault(data["index"], []).append(delta.get("args") or "")
    return {names[index]: json.loads("".join(parts)) for index, parts in texts.items()}


def test_event_protocol_delivers_parallel_calls_and_reconnects_by_since(agent_server):
    async def main() -> None:
        async with AgentServerClient(agent_server) as client:
            thread_id = (await client.threads.create())["thread_id"]
            listening = asyncio.create_task(_until_interrupted(client, thread_id, None))
            await asyncio.sleep(0.5)  # subscribed before the run starts
            started = await client.threads.command(thread_id, "run.start", {
                "assistant_id": "inspection", "input": {"messages": [{"role": "user", "content": PROMPT}]}})
            assert isinstance(started, dict) and started["type"] == "success" and started["result"]["run_id"]
            events = await asyncio.wait_for(listening, 60)
            assert _joined_args(events) == EXPECTED
            requested = {e["params"]["data"]["payload"]["tool_call"]["id"] for e in events
                         if e["method"] == "input.requested"}
            started_ids = {e["params"]["data"]["content"]["id"] for e in events if e["method"] == "messages"
                           and e["params"]["data"].get("event") == "content-block-start"
                           and e["params"]["data"]["content"].get("type") == "tool_call_chunk"}
            assert requested == started_ids and len(requested) == 2  # both calls wait on the device

            # reconnect from the middle of the deltas: the replay starts after the cursor, and with what
            # came before it, it is the whole stream again
            deltas = [e["seq"] for e in events if '"tool-call-delta"' in str(e).replace("'", '"')]
            since = deltas[len(deltas) // 2]
            replay = await asyncio.wait_for(_until_interrupted(client, thread_id, since), 60)
            assert replay[0]["seq"] == since + 1
            assert _joined_args([e for e in events if e["seq"] <= since] + replay) == EXPECTED

    asyncio.run(main())


def test_a_refused_command_raises(agent_server):
    async def main() -> None:
        async with AgentServerClient(agent_server) as client:
            thread_id = (await client.threads.create())["thread_id"]
            with pytest.raises(StreamError) as caught:
                await client.threads.command(thread_id, "run.start", {"input": {}})  # no assistant_id
            assert "assistant_id" in str(caught.value)

    asyncio.run(main())
