"""Two Aegra servers on one Postgres (with Redis): a thread started on one is resumed on the other;
a killed server's run is taken over by the other; a part that dies is reported with its log;
stop() leaves no process behind."""

from __future__ import annotations

import time

import httpx
import pytest
from durable_helpers import (
    ASSISTANT,
    collect,
    draft_answer,
    run,
    start_and_wait,
    start_message,
    start_test_stack,
    stop_test_stack,
)

from sitewalk.agentserver import AgentServerClient, pending_interrupts
from sitewalk_build.durable import DurableError

pytestmark = pytest.mark.xdist_group("two-servers")  # one worker: stacks started once for the module


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


# Short leases so a dead worker's run is taken over in seconds, not Aegra's default ~50 s.
SHORT_LEASE = {"LEASE_DURATION_SECONDS": "7", "HEARTBEAT_INTERVAL_SECONDS": "2", "REAPER_INTERVAL_SECONDS": "2"}


def _picked_up_by(stack, run_id: str) -> list[int]:
    return [i for i, part in enumerate(stack.servers)
            if any("Worker picked up run" in line and run_id in line
                   for line in part.log_path.read_text(errors="replace").splitlines())]


def _wait_for(condition, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"not within {seconds} s")


def test_a_killed_servers_run_is_taken_over_by_the_other():
    stack = start_test_stack("takeover", workers=2, extra_env=SHORT_LEASE)
    try:
        first = stack.urls[0]
        thread_id = httpx.post(first + "/threads", json={}).json()["thread_id"]
        # messages streamed (paced by the scripted model), so the run lasts several seconds
        body = {"assistant_id": ASSISTANT, "input": start_message("pace_ms=600"),
                "stream_mode": ["values", "messages-tuple"]}
        run_id = httpx.post(f"{first}/threads/{thread_id}/runs", json=body).json()["run_id"]
        [executor] = _wait_for(lambda: _picked_up_by(stack, run_id), 20)
        stack.kill_server(executor)
        survivor = stack.urls[1 - executor]
        runs = f"{survivor}/threads/{thread_id}/runs/{run_id}"
        status = _wait_for(lambda: httpx.get(runs).json()["status"] not in ("pending", "running")
                           and httpx.get(runs).json()["status"], 90)
        assert status in ("success", "interrupted")
        assert 1 - executor in _picked_up_by(stack, run_id)  # the survivor ran it again
        state = httpx.get(f"{survivor}/threads/{thread_id}/state").json()
        [pending] = state["interrupts"]
        assert pending["value"]["tool_call"]["name"] == "read_local_draft"
    finally:
        stop_test_stack(stack)
