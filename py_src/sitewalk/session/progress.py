"""Is a run still making progress? The pure decisions behind the "This run is stuck" panel.

A server killed mid-run and started again without Redis keeps the run `running` (or `pending`) in
its database with no worker behind it: its stream can be joined but says nothing, and never ends
(checked on Aegra 0.11). Heartbeats do not tell: the new server sends them on that silent stream
too. So the watch decides from what it sees and what it asks:

- events arriving: progress, whatever else is going on;
- silence on a stream that was never interrupted: the agent is thinking, nothing to ask;
- silence for `quiet_s` after the stream was interrupted (the connection dropped and was rejoined, or
  an inspection was reopened onto a run already going): ask the server (`RunProbe`: the run's
  status and the thread's newest checkpoint);
- the run still active and the checkpoint unchanged `confirm_s` later: stuck. A checkpoint that
  moved is progress (someone works on it); a run that ended needs its stream no more; a server out
  of reach is not stuck, it is away (the connection notice says so).

What Continue does is decided from the thread's state (`continue_plan`): run on from the newest
checkpoint (input None, which Aegra accepts with a checkpoint), or, when the thread already waits on
answers or has nothing left to run, start nothing (the pending interrupts are answered as usual).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from ..agentserver.client import pending_interrupts
from .refusals import Refused

__all__ = [
    "ACTIVE",
    "ContinueKind",
    "ContinuePlan",
    "ProgressWatch",
    "RunProbe",
    "StuckChoice",
    "StuckPolicy",
    "StuckRun",
    "Verdict",
    "continue_plan",
    "parse_choice",
]

ACTIVE = frozenset({"pending", "running"})
"""Run statuses that say a worker is (or should be) on it."""

StuckChoice = Literal["cancel", "continue"]


@dataclass(frozen=True)
class StuckPolicy:
    """How long silence may last before the server is asked, and before stuck is said."""

    quiet_s: float = 10.0  # silence after an interruption before the server is asked
    confirm_s: float = 5.0  # the same checkpoint this much later: stuck (also the gap between asks)
    tick_s: float = 1.0  # how often a silent stream is looked at


class Verdict(StrEnum):
    FLOWING = "flowing"  # progress, or nothing that calls for a question yet
    PROBE = "probe"  # ask the server now (`RunProbe`)
    ENDED = "ended"  # the server says the run ended: its silent stream need not be waited on
    STUCK = "stuck"


@dataclass(frozen=True)
class RunProbe:
    """What the server said: the run's status (None: out of reach) and the thread's newest checkpoint."""

    status: str | None
    checkpoint_id: str | None = None


@dataclass(frozen=True)
class StuckRun:
    """A run the server keeps active while nothing works on it: what the panel shows."""

    run_id: str
    status: str  # as the server reports it: running or pending
    checkpoint_id: str | None  # where Continue runs on from
    silent_s: float  # how long no event came


class ProgressWatch:
    """The verdict on one run's stream, from its events, its interruptions and the server's answers.

    Times are the caller's clock (seconds); the watch keeps no clock of its own, so tests give times.
    """

    def __init__(self, policy: StuckPolicy, now: float, interrupted: bool = False) -> None:
        self.policy = policy
        self.interrupted_once = interrupted
        self.last_sign = now  # the newest event, or the newest interruption (silence counts from there)
        self.asked_at: float | None = None
        self.first_still: tuple[float, str | None] | None = None  # (when, checkpoint) first seen active
        self.probe: RunProbe | None = None  # the newest answer
        self.stuck = False
        self.ended = False

    def event(self, now: float) -> None:
        """An event arrived: progress (a stuck verdict is lifted)."""
        self.last_sign = now
        self._forget()

    def interrupted(self, now: float) -> None:
        """The connection dropped (or the run was joined late): silence now calls for questions.

        A run already stuck stays stuck: a silent stream is given up and rejoined now and then
        (`agentserver.stall`), which is no sign of progress; only an event lifts the verdict."""
        self.interrupted_once = True
        if self.stuck:
            return
        self.last_sign = max(self.last_sign, now)
        self._forget()

    def probed(self, now: float, probe: RunProbe) -> None:
        self.asked_at, self.probe = now, probe
        if probe.status is None:  # out of reach: the server is away, not stuck
            self.first_still = None
        elif probe.status not in ACTIVE:
            self.ended = True
        elif self.first_still is None or self.first_still[1] != probe.checkpoint_id:
            self.first_still = (now, probe.checkpoint_id)  # first seen, or the checkpoint moved: progress
        elif now - self.first_still[0] >= self.policy.confirm_s:
            self.stuck = True

    def verdict(self, now: float) -> Verdict:
        if self.stuck:
            return Verdict.STUCK
        if self.ended:
            return Verdict.ENDED
        if not self.interrupted_once or now - self.last_sign < self.policy.quiet_s:
            return Verdict.FLOWING
        if self.asked_at is None or now - self.asked_at >= self.policy.confirm_s:
            return Verdict.PROBE
        return Verdict.FLOWING

    def stuck_run(self, run_id: str, now: float) -> StuckRun:
        probe = self.probe or RunProbe("running")
        return StuckRun(run_id, str(probe.status), probe.checkpoint_id, round(now - self.last_sign, 1))

    def _forget(self) -> None:
        self.asked_at, self.first_still, self.probe = None, None, None
        self.stuck = self.ended = False


def parse_choice(choice: str) -> StuckChoice:
    if choice == "cancel":
        return "cancel"
    if choice == "continue":
        return "continue"
    raise Refused("unknown_choice", f"{choice!r} is not a choice for a stuck run (cancel or continue)")


class ContinueKind(StrEnum):
    RERUN = "rerun"  # a new run from the newest checkpoint (input None)
    ANSWER = "answer"  # the thread waits on answers: answer them, start nothing
    FINISHED = "finished"  # nothing left to run: show the state, start nothing


@dataclass(frozen=True)
class ContinuePlan:
    kind: ContinueKind
    checkpoint_id: str | None = None


def continue_plan(state: dict[str, Any]) -> ContinuePlan:
    """What Continue does on a thread whose stuck run was stopped, from the thread's state."""
    if pending_interrupts(state):
        return ContinuePlan(ContinueKind.ANSWER)
    if not state.get("next"):
        return ContinuePlan(ContinueKind.FINISHED)
    checkpoint = state.get("checkpoint") or {}
    checkpoint_id = checkpoint.get("checkpoint_id") if isinstance(checkpoint, dict) else None
    if not checkpoint_id:
        raise Refused("no_checkpoint", "the thread's state names no checkpoint to continue from")
    return ContinuePlan(ContinueKind.RERUN, str(checkpoint_id))
