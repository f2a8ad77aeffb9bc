"""Two Aegra servers on one Postgres (with Redis): a thread started on one is resumed on the other;
a part that dies is reported with its log; stop() leaves no process behind."""

from __future__ import annotations

import pytest
from durable_helpers import ASSISTANT, collect, draft_answer, run, start_and_wait, start_test_stack, stop_test_stack

from sitewalk.agentserver import AgentServerClient, pending_interrupts
from sitewalk_build.durable import DurableError


@pytest.fixture(scope="module")
def two_servers():
    stack = start_test_stack("two", workers=2)
    try:
        yield stack
    finally:
        stop_test_stack(stack)


def test_started_on_one_resumed_on_the_other(two_servers):
    first, second = two_servers.urls
    assert first != second and two_servers.redis is not None and two_servers.redis.alive()

    async def go():
        async with AgentServerClient(first) as one, AgentServerClient(second) as other:
            thread_id, pending, _ = await start_and_wait(one)
            assert pending_interrupts(await other.threads.get_state(thread_id)) == [pending]
            await collect(other.resume(thread_id, ASSISTANT, draft_answer(pending)))
            final = await one.threads.get_state(thread_id)
            assert final["values"]["messages"][-1]["content"] == "The card for inspection-42 is on screen."

    run(go())


def test_a_dead_part_is_reported_and_stop_leaves_nothing(two_servers):
    two_servers.check()
    assert two_servers.alive()
    two_servers.redis.kill()
    assert not two_servers.alive()
    with pytest.raises(DurableError, match=r"redis exited with code -9; last lines of its log"):
        two_servers.check()
    assert "redis exited" in two_servers.log_tail()
    two_servers.stop()
    assert all(p.process is not None and p.process.poll() is not None for p in two_servers.parts())
