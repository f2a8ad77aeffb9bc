"""A stream that goes silent after heartbeats is given up as a dropped connection (`agentserver.stall`)."""

from __future__ import annotations

import asyncio

import pytest

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.agentserver.stall import StreamStalled, until_stalled
from sitewalk.base.server_errors import ServerUnreachable

HEARTBEAT = ": heartbeat\r\n\r\n"
EVENT = 'event: metadata\r\ndata: {"run_id": "r1"}\r\n\r\n'


class SilentTransport:
    """Streams `chunks`, each after its pause, then (with `hang`) goes silent forever."""

    def __init__(self, chunks: list[tuple[float, str]], hang: bool) -> None:
        self.chunks, self.hang, self.closed = chunks, hang, False

    async def stream(self, method, url, json=None, headers=None):
        try:
            for pause, text in self.chunks:
                await asyncio.sleep(pause)
                yield text
            if self.hang:
                await asyncio.Event().wait()
        finally:
            self.closed = True  # the browser's transport aborts its fetch here

    async def request(self, method, url, json=None, headers=None):
        raise AssertionError("no requests expected")

    async def aclose(self) -> None:
        pass


async def _events(transport: SilentTransport, stall_seconds: float) -> list[str]:
    client = AgentServerClient("http://agent.test", transport=transport, stall_seconds=stall_seconds)
    return [part.event async for part in client.runs.join_stream("t1", "r1")]


def test_a_stream_silent_after_a_heartbeat_is_given_up_and_its_request_closed():
    transport = SilentTransport([(0, EVENT), (0, HEARTBEAT)], hang=True)
    with pytest.raises(StreamStalled) as raised:
        asyncio.run(asyncio.wait_for(_events(transport, stall_seconds=0.05), 5))
    assert isinstance(raised.value, ServerUnreachable)  # rejoined like any dropped connection
    assert transport.closed


def test_a_stream_without_heartbeats_gets_a_longer_wait():
    # Aegra sends no heartbeats: a run that thinks for a while there is not taken for a dead connection
    transport = SilentTransport([(0, EVENT), (0.1, EVENT)], hang=False)  # 0.1 s: over 0.05, under 3 x 0.05
    assert asyncio.run(_events(transport, stall_seconds=0.05)) == ["metadata", "metadata"]


def test_a_stream_without_heartbeats_that_goes_silent_is_given_up_in_the_end():
    transport = SilentTransport([(0, EVENT)], hang=True)
    with pytest.raises(StreamStalled):
        asyncio.run(asyncio.wait_for(_events(transport, stall_seconds=0.05), 5))
    assert transport.closed


def test_each_chunk_restarts_the_wait():
    chunks = [(0, HEARTBEAT)] + [(0.03, EVENT)] * 5  # 0.15 s in all, never 0.05 s silent
    assert len(asyncio.run(_events(SilentTransport(chunks, hang=False), stall_seconds=0.05))) == 5


def test_until_stalled_passes_an_unlimited_source_through():
    async def source():
        for text in ("a", "b"):
            yield text

    async def collect():
        return [t async for t in until_stalled(source(), lambda: None, "u")]

    assert asyncio.run(collect()) == ["a", "b"]
