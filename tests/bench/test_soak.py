"""Soak on the durable server: many inspections while servers die, connections drop and answers repeat.

Bounded and loopback only: two Aegra servers on one Postgres with Redis (short leases, so a killed
server's run is taken over), in a cluster of its own that is removed afterwards. It stops by itself
after SITEWALK_SOAK_N inspections (default 200) or SITEWALK_SOAK_SECONDS (default 1500), whichever
comes first, and prints its figures. Run by `./sw bench` (not in the test suite); SITEWALK_SOAK_SEED
replays a run's faults.

Each inspection: a new thread, a run until it waits on the headless read_local_draft, the browser's
answer, the run to its end; streams are resumable and continue on disconnect, as the app opens them,
and while the same interrupt is still pending the kept answer is delivered again, as the app does
after a reload (AnswerBook). Faults, drawn at random: a server `kill -9` (restarted at the next
inspection; the other server carries on), a stream abandoned after its first event (a dropped
connection), a new client for every step (a reload), the answer delivered twice (a duplicate).
Counted: results lost (a finished thread without the tool's result or the closing message), duplicate
results (the call's result or the closing message twice), stuck runs (not finished in time).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "durable"))
from durable_helpers import ASSISTANT, draft_answer, start_message  # noqa: E402

from sitewalk.agentserver import AgentServerClient, AgentServerError, ServerUnreachable, pending_interrupts  # noqa: E402
from sitewalk_build.durable import DURABLE, DurableError, DurableServer, start_durable  # noqa: E402

N = int(os.environ.get("SITEWALK_SOAK_N", "200"))
BUDGET_S = float(os.environ.get("SITEWALK_SOAK_SECONDS", "1500"))
SEED = int(os.environ.get("SITEWALK_SOAK_SEED", str(int(time.time()))))
STEP_TIMEOUT_S = 90.0  # a run not done after this long (a lease is 7 s) counts as stuck
CLOSING = "The card for inspection-42 is on screen."
P_KILL, P_DROP, P_DUPLICATE = 0.08, 0.2, 0.2
STREAM: dict[str, Any] = {"stream_resumable": True, "on_disconnect": "continue"}  # as the app (rejoin.py)
SHORT_LEASE = {"LEASE_DURATION_SECONDS": "7", "HEARTBEAT_INTERVAL_SECONDS": "2", "REAPER_INTERVAL_SECONDS": "2"}


class Stuck(Exception):
    """A step did not complete within STEP_TIMEOUT_S."""


class Soak:
    """The stack, the dice and the tally of one soak run."""

    def __init__(self, stack: DurableServer, rng: random.Random) -> None:
        self.stack, self.rng = stack, rng
        self.tally: Counter[str] = Counter()

    def heal(self) -> None:
        """Restart every server killed during the previous inspection."""
        for i, part in enumerate(self.stack.servers):
            if not part.alive():
                self.stack.restart_server(i)
                self.tally["restarts"] += 1

    def maybe_kill(self) -> None:
        alive = [i for i, part in enumerate(self.stack.servers) if part.alive()]
        if len(alive) > 1 and self.rng.random() < P_KILL:
            self.stack.kill_server(self.rng.choice(alive))
            self.tally["kills"] += 1

    async def call(self, step: Callable[[AgentServerClient], Awaitable[Any]]) -> Any:
        """Run one step with a new client (a reload) on a random server; retry while servers are down."""
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            self.tally["clients"] += 1
            try:
                async with AgentServerClient(self.rng.choice(self.stack.urls)) as client:
                    return await step(client)
            except ServerUnreachable:
                self.tally["unreachable"] += 1
            if time.monotonic() > deadline:
                raise Stuck("no server answered")
            await asyncio.sleep(0.3)

    async def until(self, read: Callable[[AgentServerClient], Awaitable[Any]]) -> Any:
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while time.monotonic() < deadline:
            value = await self.call(read)
            if value:
                return value
            await asyncio.sleep(0.3)
        raise Stuck("not reached in time")

    async def stream(self, parts: Any) -> None:
        """Follow a run's stream, or drop the connection after its first event."""
        drop = self.rng.random() < P_DROP
        async for _ in parts:
            if drop:
                self.tally["dropped_streams"] += 1
                break

    async def inspection(self, i: int) -> None:
        thread = await self.call(lambda c: c.threads.create(metadata={"soak": str(i)}))
        thread_id = thread["thread_id"]
        await self.start(thread_id)
        self.maybe_kill()
        pending = await self.until(lambda c: _first_pending(c, thread_id))
        await self.deliver(thread_id, pending)
        self.maybe_kill()  # while the continued run may still be going
        if self.rng.random() < P_DUPLICATE:
            self.tally["duplicate_deliveries"] += 1
            await self.deliver(thread_id, pending)
        final = await self.until(lambda c: self.finished(c, thread_id, pending))
        if not self.judge(final, pending["value"]["tool_call"]["id"]):
            runs = await self.call(lambda c: c.runs.list(thread_id, limit=20))
            last = final["values"]["messages"][-1]
            print(f"\nlost: thread {thread_id} runs {[r['status'] for r in runs]} last message "
                  f"{last.get('type')}: {str(last.get('content'))[:120]!r}")

    async def start(self, thread_id: str) -> None:
        """Start the run once: a retry after an unreachable server first checks it did not start."""
        async def step(client: AgentServerClient) -> None:
            if (await client.threads.get_state(thread_id))["values"].get("messages"):
                return  # the first attempt reached the server
            await self.stream(client.runs.stream(thread_id, ASSISTANT, input=start_message(), **STREAM))

        await self.call(step)

    async def deliver(self, thread_id: str, pending: Any) -> None:
        async def step(client: AgentServerClient) -> None:
            try:
                await self.stream(client.resume(thread_id, ASSISTANT, draft_answer(pending), **STREAM))
            except ServerUnreachable:
                raise
            except AgentServerError:  # already answered (a duplicate, or a retry after a drop)
                self.tally["refused_deliveries"] += 1

        await self.call(step)

    async def finished(self, client: AgentServerClient, thread_id: str, pending: Any) -> Any:
        """The final state once the run is done; while the answered interrupt is still pending and
        no run is active, deliver the kept answer again (the app's reload)."""
        active = [r for r in await client.runs.list(thread_id, limit=20) if r["status"] in ("pending", "running")]
        if active:  # a killed server's run waits for its lease to run out, then the other server takes it
            return None
        state = await client.threads.get_state(thread_id)
        if pending in pending_interrupts(state):
            self.tally["redeliveries"] += 1
            await self.deliver(thread_id, pending)
            return None
        return state if not state.get("next") and state["values"].get("messages") else None

    def judge(self, final: Any, call_id: str) -> bool:
        """Count the outcome; False when the result was lost."""
        messages = final["values"].get("messages", [])
        results = [m for m in messages if m.get("type") == "tool" and m.get("tool_call_id") == call_id]
        closing = [m for m in messages if m.get("content") == CLOSING]
        if len(results) > 1 or len(closing) > 1:
            self.tally["duplicate_results"] += 1
        self.tally["finished"] += 1
        if not results or not closing:
            self.tally["results_lost"] += 1
            return False
        return True


async def _first_pending(client: AgentServerClient, thread_id: str) -> Any:
    pending = pending_interrupts(await client.threads.get_state(thread_id))
    return pending[0] if pending else None


@pytest.fixture
def stack():
    home = DURABLE / "test-runs" / f"soak-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    try:
        server = start_durable(2, home=home, extra_env=SHORT_LEASE)
    except DurableError as exc:
        pytest.skip(f"durable server prerequisites missing: {exc}")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_soak(stack):
    soak = Soak(stack, random.Random(SEED))
    started = time.monotonic()

    async def go() -> None:
        for i in range(N):
            if time.monotonic() - started > BUDGET_S:
                break
            soak.heal()
            soak.tally["inspections"] += 1
            try:
                await soak.inspection(i)
            except Stuck:
                soak.tally["runs_stuck"] += 1

    asyncio.run(go())
    seconds = time.monotonic() - started
    tally = soak.tally
    print(f"\nsoak (seed {SEED}): {tally['inspections']} inspections in {seconds:.0f} s "
          f"({seconds / max(tally['inspections'], 1):.2f} s each): finished {tally['finished']}, "
          f"results lost {tally['results_lost']}, duplicate results {tally['duplicate_results']}, "
          f"runs stuck {tally['runs_stuck']}; faults: kills {tally['kills']} (restarts {tally['restarts']}), "
          f"dropped streams {tally['dropped_streams']}, duplicate deliveries {tally['duplicate_deliveries']} "
          f"(refused {tally['refused_deliveries']}), redeliveries after a reload {tally['redeliveries']}, "
          f"new clients {tally['clients']}, "
          f"unreachable retries {tally['unreachable']}")
    assert tally["inspections"] > 0
    assert (tally["results_lost"], tally["duplicate_results"], tally["runs_stuck"]) == (0, 0, 0)
