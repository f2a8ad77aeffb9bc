"""A soak on the durable server: inspections while servers die, connections drop and answers repeat.

Shared by the small deterministic soak of the suite (tests/durable/test_soak_small.py, in CI) and the
long one of `./sw bench` (tests/bench/test_soak.py). Two Aegra servers on one Postgres with Redis
(short leases, so a killed server's run is taken over).

Each inspection: a new thread, a run until it waits on the headless read_local_draft, the browser's
answer, the run to its end; streams are resumable and continue on disconnect, as the app opens them,
and while the same interrupt is still pending the kept answer is delivered again, as the app does
after a reload (AnswerBook). The faults are drawn from the seed BEFORE the run (`plan`), one set per
inspection, so a seed gives the same faults whatever the timing: a server `kill -9` after the start or
after the answer (restarted at the next inspection; the other server carries on), the start's or the
answer's stream abandoned after its first event (a dropped connection), the answer delivered twice (a
duplicate). A new client serves every step (a reload), on a server picked by a second generator.
Counted: results lost (a finished thread without the tool's result or the closing message), duplicate
results (the call's result or the closing message twice), stuck runs (not finished in time). A delivery
the server did not take is counted by its answer (`delivery_failure`): a 4xx is a refused delivery (the
answer was already taken, or a run is busy on the thread), a 5xx a server error, an error event in the
stream a stream error. A duplicate is counted once the resend was sent and answered, and whether the
server refused it (`refused_duplicates`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from durable_helpers import ASSISTANT, draft_answer, start_message

from sitewalk.agentserver import (
    AgentServerClient,
    AgentServerError,
    HTTPStatusError,
    ServerUnreachable,
    pending_interrupts,
)
from sitewalk_build.durable import DurableServer

__all__ = ["ACCEPTED", "SHORT_LEASE", "Faults", "Soak", "delivery_failure", "plan"]

STEP_TIMEOUT_S = 90.0  # a run not done after this long (a lease is 7 s) counts as stuck
CLOSING = "The card for inspection-42 is on screen."
P_KILL, P_DROP, P_DUPLICATE = 0.08, 0.2, 0.2
STREAM: dict[str, Any] = {"stream_resumable": True, "on_disconnect": "continue"}  # as the app (rejoin.py)
ACCEPTED = "accepted"  # a delivery whose stream ran (or was dropped as planned) without an error
SHORT_LEASE = {"LEASE_DURATION_SECONDS": "7", "HEARTBEAT_INTERVAL_SECONDS": "2", "REAPER_INTERVAL_SECONDS": "2"}


@dataclass(frozen=True)
class Faults:
    """What goes wrong during one inspection."""

    kill: str | None  # "after_start" | "after_answer" | None
    victim: int  # which server is killed
    drop_start: bool
    drop_answer: bool
    duplicate: bool


def plan(seed: int, n: int, servers: int = 2) -> list[Faults]:
    """The faults of n inspections, from the seed alone."""
    rng = random.Random(seed)
    faults = []
    for _ in range(n):
        roll = rng.random()
        kill = "after_start" if roll < P_KILL else "after_answer" if roll < 2 * P_KILL else None
        faults.append(Faults(kill, rng.randrange(servers), rng.random() < P_DROP, rng.random() < P_DROP,
                             rng.random() < P_DUPLICATE))
    return faults


def planned(faults: list[Faults]) -> dict[str, int]:
    """The fault counts a soak of this plan must report."""
    return {"kills": sum(f.kill is not None for f in faults),
            "dropped_streams": sum(f.drop_start for f in faults) + sum(f.drop_answer for f in faults),
            "duplicate_deliveries": sum(f.duplicate for f in faults)}


def delivery_failure(exc: AgentServerError) -> str:
    """The count a delivery the server did not take goes to: a 4xx is the server refusing the answer
    (`refused_deliveries`), a 5xx is a fault of the server (`server_errors`), not a refusal; an error
    event in the run's stream is a `stream_errors`."""
    if isinstance(exc, HTTPStatusError):
        return "refused_deliveries" if exc.status < 500 else "server_errors"
    return "stream_errors"


class Stuck(Exception):
    """A step did not complete within STEP_TIMEOUT_S."""


class Soak:
    """The stack, the dice and the tally of one soak run."""

    def __init__(self, stack: DurableServer, seed: int) -> None:
        self.stack, self.rng = stack, random.Random(seed + 1)  # server picks; the faults are planned
        self.tally: Counter[str] = Counter()

    def heal(self) -> None:
        """Restart every server killed during the previous inspection."""
        for i, part in enumerate(self.stack.servers):
            if not part.alive():
                self.stack.restart_server(i)
                self.tally["restarts"] += 1

    def kill(self, faults: Faults, when: str) -> None:
        if faults.kill == when:
            self.stack.kill_server(faults.victim)
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

    async def stream(self, parts: Any, drop: bool) -> None:
        """Follow a run's stream, or drop the connection after its first event."""
        async for _ in parts:
            if drop:
                self.tally["dropped_streams"] += 1
                break

    async def inspection(self, i: int, faults: Faults) -> None:
        thread = await self.call(lambda c: c.threads.create(metadata={"soak": str(i)}))
        thread_id = thread["thread_id"]
        await self.start(thread_id, faults.drop_start)
        self.kill(faults, "after_start")
        pending = await self.until(lambda c: _first_pending(c, thread_id))
        await self.deliver(thread_id, pending, faults.drop_answer)
        self.kill(faults, "after_answer")  # while the continued run may still be going
        if faults.duplicate:
            await self.resend(thread_id, pending)
        final = await self.until(lambda c: self.finished(c, thread_id, pending))
        if not self.judge(final, pending["value"]["tool_call"]["id"]):
            runs = await self.call(lambda c: c.runs.list(thread_id, limit=20))
            last = final["values"]["messages"][-1]
            print(f"\nlost: thread {thread_id} runs {[r['status'] for r in runs]} last message "
                  f"{last.get('type')}: {str(last.get('content'))[:120]!r}")

    async def start(self, thread_id: str, drop: bool) -> None:
        """Start the run once: a retry after an unreachable server first checks it did not start."""
        async def step(client: AgentServerClient) -> None:
            if (await client.threads.get_state(thread_id))["values"].get("messages"):
                return  # the first attempt reached the server
            await self.stream(client.runs.stream(thread_id, ASSISTANT, input=start_message(), **STREAM), drop)

        await self.call(step)

    async def resend(self, thread_id: str, pending: Any) -> None:
        """The duplicate: the answer delivered again, counted once the resend was sent and answered (a
        resend that never reached a server raises Stuck and is no duplicate delivery)."""
        outcome = await self.deliver(thread_id, pending)
        self.tally["duplicate_deliveries"] += 1
        if outcome == "refused_deliveries":
            self.tally["refused_duplicates"] += 1

    async def deliver(self, thread_id: str, pending: Any, drop: bool = False) -> str:
        """Deliver the kept answer (retried while no server answers); ACCEPTED or the count its failure
        went to (`delivery_failure`)."""
        async def step(client: AgentServerClient) -> str:
            try:
                await self.stream(client.resume(thread_id, ASSISTANT, draft_answer(pending), **STREAM), drop)
            except ServerUnreachable:
                raise
            except AgentServerError as exc:
                return delivery_failure(exc)
            return ACCEPTED

        outcome: str = await self.call(step)
        if outcome != ACCEPTED:
            self.tally[outcome] += 1
        return outcome

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

    async def run(self, faults: list[Faults], budget_s: float = float("inf")) -> float:
        """The inspections of the plan (fewer when the budget runs out); the seconds it took."""
        started = time.monotonic()
        for i, inspection_faults in enumerate(faults):
            if time.monotonic() - started > budget_s:
                break
            self.heal()
            self.tally["inspections"] += 1
            try:
                await self.inspection(i, inspection_faults)
            except Stuck:
                self.tally["runs_stuck"] += 1
        return time.monotonic() - started

    def summary(self, seed: int, seconds: float) -> str:
        t = self.tally
        return (f"soak (seed {seed}): {t['inspections']} inspections in {seconds:.0f} s "
                f"({seconds / max(t['inspections'], 1):.2f} s each): finished {t['finished']}, "
                f"results lost {t['results_lost']}, duplicate results {t['duplicate_results']}, "
                f"runs stuck {t['runs_stuck']}; faults: kills {t['kills']} (restarts {t['restarts']}), "
                f"dropped streams {t['dropped_streams']}, duplicate deliveries {t['duplicate_deliveries']} "
                f"(refused {t['refused_duplicates']}), refused deliveries {t['refused_deliveries']}, "
                f"server errors {t['server_errors']}, stream errors {t['stream_errors']}, "
                f"redeliveries after a reload {t['redeliveries']}, "
                f"new clients {t['clients']}, unreachable retries {t['unreachable']}")


async def _first_pending(client: AgentServerClient, thread_id: str) -> Any:
    pending = pending_interrupts(await client.threads.get_state(thread_id))
    return pending[0] if pending else None
