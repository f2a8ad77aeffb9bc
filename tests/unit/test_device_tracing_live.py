"""Device tracing with the browser's own session code under CPython, against the live agent server (langgraph
dev; Aegra with SITEWALK_SERVER=aegra): whole inspections with tracing on send their spans to the server's
device-span route, which takes them; a sentinel in the draft's local-only notes (and in a reviewer's reason)
is in none of them; offline they wait and arrive once; a batch whose answer was lost is sent again and the
server exports none of it twice."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from memory_storage import MemoryStore
from test_session_live import RecordingView

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.base import trace_hooks
from sitewalk.base.server_errors import ServerUnreachable
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.session import InspectionSession
from sitewalk.session.reviews import approve, reject
from sitewalk.tracing import DeviceTracing, start

SENTINEL = "SENTINEL-local-only-91d2"


class Wire:
    """Between the device's sender and the live server: what was posted and answered; it can go offline, or
    lose the server's answer to a batch the server took."""

    def __init__(self, client: AgentServerClient) -> None:
        self.client = client
        self.offline = False
        self.lose_next_answer = False
        self.posted: list[dict[str, Any]] = []
        self.answers: list[dict[str, int]] = []

    async def post(self, batch: dict[str, Any]) -> object:
        if self.offline:
            raise ServerUnreachable("offline")
        self.posted.append(json.loads(json.dumps(batch)))
        answer = await self.client.send_device_spans(batch)
        self.answers.append(answer)
        if self.lose_next_answer:
            self.lose_next_answer = False
            raise ServerUnreachable("the connection dropped before the answer came")
        return answer


async def sent_out(tracing: DeviceTracing) -> None:
    for _ in range(200):
        await asyncio.sleep(0.02)
        if not tracing._sending:
            return


@pytest.fixture
def traced():
    yield
    trace_hooks.install(None)


def inspection(agent_server: str, then: Any = None, script: str = "") -> tuple[Wire, DeviceTracing, Any]:
    async def go() -> tuple[Wire, DeviceTracing, Any]:
        inspection_id = f"inspection-tr{uuid.uuid4().hex[:8]}"
        registry = HeadlessToolRegistry()
        draft = {"site": "Pier 4", "inspector": "Ana", "risk": "high", "notes": SENTINEL}
        drafts = MemoryStore({draft_key(inspection_id): json.dumps(draft)})
        registry.register("read_local_draft", read_local_draft(drafts))
        async with AgentServerClient(agent_server) as client:
            wire = Wire(client)
            tracing = start(wire.post, asyncio.ensure_future)
            session = InspectionSession(client, registry, RecordingView())
            await session.start(inspection_id, note=script)
            await sent_out(tracing)
            after = await then(session, wire, tracing) if then is not None else None
            await sent_out(tracing)
        return wire, tracing, after

    return asyncio.run(go())


def spans_of(wire: Wire) -> list[dict[str, Any]]:
    return [span for batch in wire.posted for span in batch["spans"]]


def test_a_whole_inspection_sends_its_spans_and_no_local_only_field(agent_server, traced):
    wire, tracing, _ = inspection(agent_server)
    spans = spans_of(wire)
    names = {s["name"] for s in spans}
    assert {"device.headless_tool", "device.screen"} <= names
    [tool] = [s for s in spans if s["name"] == "device.headless_tool"]
    assert tool["attributes"]["sitewalk.tool_name"] == "read_local_draft"
    assert tool["attributes"]["sitewalk.tool_call_id"] and tool["attributes"]["sitewalk.thread_id"]
    assert sum(a["exported"] for a in wire.answers) == len(spans) == tracing.sender.sent
    assert SENTINEL not in json.dumps(wire.posted)


def test_review_decisions_are_spans_without_the_reviewers_words(agent_server, traced):
    async def decide(session: InspectionSession, wire: Wire, tracing: DeviceTracing) -> None:
        reviews = await session.show_reviews()
        first, second = reviews[0], reviews[1]
        await session.review({first.interrupt_id: approve(first), second.interrupt_id: reject(second, SENTINEL)})

    wire, _, _ = inspection(agent_server, decide, script="script: review")
    decisions = [s for s in spans_of(wire) if s["name"] == "device.review_decision"]
    assert sorted(s["attributes"]["sitewalk.decision"] for s in decisions) == ["approve", "reject"]
    for decision in decisions:
        assert decision["attributes"]["sitewalk.interrupt_id"] and decision["attributes"]["sitewalk.checkpoint_id"]
    assert SENTINEL not in json.dumps(wire.posted)


def test_offline_the_spans_wait_and_arrive_once_and_a_lost_answer_exports_nothing_twice(agent_server, traced):
    async def drop_then_reconnect(session: InspectionSession, wire: Wire, tracing: DeviceTracing) -> dict[str, int]:
        before = len(wire.posted)
        wire.offline = True
        with trace_hooks.span("device.screen", tool_call_id="offline-screen"):
            pass
        trace_hooks.flush()
        await sent_out(tracing)
        waiting = tracing.recorder.ready_count()
        wire.offline = False
        wire.lose_next_answer = True  # back online: the server takes the batch, its answer is lost
        trace_hooks.flush()
        await sent_out(tracing)
        trace_hooks.flush()  # the next flush sends it again
        await sent_out(tracing)
        return {"waiting": waiting, "posted_while_offline": len(wire.posted) - before}

    wire, tracing, seen = inspection(agent_server, drop_then_reconnect)
    assert seen["waiting"] == 1
    offline = [a for a, b in zip(wire.answers, wire.posted, strict=True)
               if any(s["attributes"].get("sitewalk.tool_call_id") == "offline-screen" for s in b["spans"])]
    assert offline == [{"exported": 1, "duplicates": 0}, {"exported": 0, "duplicates": 1}]
    assert tracing.recorder.ready_count() == 0
