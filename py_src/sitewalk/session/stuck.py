"""A run that makes no progress, noticed while its stream is read, and the inspector's way out.

`StuckGuard.watching()` wraps one run's stream: events pass through; while the stream is silent
the guard looks every `tick_s`, asks the server when `progress.ProgressWatch` says so, and shows
the stuck panel (`StuckPanel`) once the watch says stuck. It hides it again if events resume (a
worker took the run up after all). The inspector then chooses (`StuckGuard.choose`):

- Cancel: the run is cancelled on the server (action interrupt: its checkpoints stay) and the
  stream is left; the session's cancellation ends the rest.
- Continue: the run is cancelled on the server (a server restarted without a worker marks it
  interrupted), the thread's state is read and `progress.continue_plan` says what follows; the
  stream is left and the caller carries on with that plan. A refusal (the server out of reach, no
  checkpoint) is shown on the panel and the run stays stuck: nothing is lost, the inspector may try
  again.

Nothing on the view is cleared: the transcript, the tool calls and the pending questions stay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal, Protocol

from ..agentserver.client import AgentServerClient, StreamPart
from ..agentserver.schema import ThreadState
from ..base.server_errors import AgentServerError
from .cancel import Cancellation
from .progress import (
    ContinuePlan,
    ProgressWatch,
    RunProbe,
    StuckChoice,
    StuckPolicy,
    StuckRun,
    Verdict,
    continue_plan,
)
from .refusals import Refused
from .thread import Thread
from .view import View

__all__ = ["Left", "StuckGuard", "StuckPanel", "Watched"]

Left = Literal["cancel", "continue", "ended"]
"""Why a watched stream was left before its end: the inspector's choice, or the server said it ended."""


class StuckPanel(Protocol):
    def stuck(self, run: StuckRun | None) -> None:
        """Show the stuck panel for this run (Cancel, Continue from the last checkpoint); None hides it."""

    def refused(self, code: str, message: str) -> None:
        """A choice on the panel could not be carried out: say why there (the panel stays)."""


class StuckGuard:
    """The stuck-run watch of one thread's streams, and the inspector's choice for the one stuck."""

    def __init__(self, client: AgentServerClient, thread: Thread, view: View, cancellation: Cancellation | None = None,
                 panel: StuckPanel | None = None, policy: StuckPolicy | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.thread = thread
        self.view = view
        self.cancellation = cancellation or Cancellation()
        self.panel = panel
        self.policy = policy or StuckPolicy()
        self.clock = clock
        self.current: Watched | None = None  # the stream being read now

    def watching(self, run_id: str | None = None) -> Watched:
        """A watch for the next stream: `run_id` when it joins a run already going (joined late)."""
        return Watched(self, run_id)

    def choose(self, choice: StuckChoice) -> None:
        """The inspector's choice for the stuck run; Refused when no run is stuck."""
        if self.current is None or not self.current.shown:
            raise Refused("not_stuck", "no run of this inspection is stuck now")
        self.current.chosen(choice)

    def show(self, run: StuckRun | None) -> None:
        if self.panel is not None:
            self.panel.stuck(run)

    def refuse(self, code: str, message: str) -> None:
        if self.panel is not None:
            self.panel.refused(code, message)
        self.view.status(f"This run is still stuck: {message}")

    async def probe(self, run_id: str) -> RunProbe:
        """The run's status and the thread's newest checkpoint; RunProbe(None) when out of reach."""
        try:
            run = await self.client.runs.get(self.thread.id, run_id)
            state = await self.client.threads.get_state(self.thread.id)
        except AgentServerError:
            return RunProbe(None)
        return RunProbe(str(run.get("status")), (state.get("checkpoint") or {}).get("checkpoint_id"))

    async def stop_run(self, run_id: str) -> None:
        """Cancel the run on the server (action interrupt: its checkpoints stay). Raises AgentServerError."""
        await self.client.runs.cancel(self.thread.id, run_id)


class Watched:
    """One run's stream under watch: `parts(source)` passes its events on; `left` says why it ended early."""

    def __init__(self, guard: StuckGuard, run_id: str | None) -> None:
        self.guard = guard
        self.run_id = run_id
        self.watch = ProgressWatch(guard.policy, guard.clock(), interrupted=run_id is not None)
        self.shown = False  # the panel is up for this run
        self.left: Left | None = None
        self.plan: ContinuePlan | None = None  # Continue's plan, once left for it
        self.state: ThreadState | None = None  # the state the plan was made from
        self._choice: asyncio.Future[StuckChoice] | None = None

    def interrupted(self) -> None:
        """The connection dropped and is being rejoined."""
        self.watch.interrupted(self.guard.clock())

    def chosen(self, choice: StuckChoice) -> None:
        if self._choice is not None and not self._choice.done():
            self._choice.set_result(choice)

    async def parts(self, source: AsyncIterator[StreamPart]) -> AsyncIterator[StreamPart]:
        self.guard.current = self
        self._choice = asyncio.get_running_loop().create_future()
        iterator = source.__aiter__()
        pending: asyncio.Future[StreamPart] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(iterator.__anext__())
                either: set[asyncio.Future[Any]] = {pending, self._choice}
                done, _ = await asyncio.wait(either, timeout=self.guard.policy.tick_s,
                                             return_when=asyncio.FIRST_COMPLETED)
                if pending in done:
                    try:
                        part = pending.result()
                    except StopAsyncIteration:
                        return
                    pending = None
                    self._saw(part)
                    yield part
                elif self._choice.done():
                    if await self._leave(self._choice.result()):
                        return
                elif await self._tick():
                    return
        finally:
            await _abandon(pending, iterator)
            if self.shown:
                self.guard.show(None)
            if self.guard.current is self:
                self.guard.current = None

    def _saw(self, part: StreamPart) -> None:
        if self.run_id is None and part.event == "metadata" and isinstance(part.data, dict):
            self.run_id = part.data.get("run_id")
        self.watch.event(self.guard.clock())
        if self.shown:  # it moves again (a worker took it up): the panel goes, a pending choice too
            self.shown = False
            self.guard.show(None)
            self._fresh_choice()

    async def _tick(self) -> bool:
        """Look at a silent stream; True when it is to be left (cancelled, or the run ended)."""
        if self.guard.cancellation.cancelled:
            self.left = "cancel"  # the inspector cancelled: a silent stream is not waited on
            return True
        verdict = self.watch.verdict(self.guard.clock())
        if verdict is Verdict.PROBE and self.run_id is not None:
            self.watch.probed(self.guard.clock(), await self.guard.probe(self.run_id))
            verdict = self.watch.verdict(self.guard.clock())
        if verdict is Verdict.ENDED:
            self.left = "ended"
            return True
        if verdict is Verdict.STUCK and not self.shown and self.run_id is not None:
            self.shown = True
            self.guard.show(self.watch.stuck_run(self.run_id, self.guard.clock()))
            self.guard.view.status("This run is stuck: the agent server keeps it running but nothing works on it. "
                                   "Continue from the last checkpoint, or cancel it.")
        return False

    async def _leave(self, choice: StuckChoice) -> bool:
        """Carry out the inspector's choice; False (and the panel says why) when Continue cannot be done."""
        assert self.run_id is not None  # a run is shown stuck only once its id is known
        try:
            await self.guard.stop_run(self.run_id)
            if choice == "continue":
                self.state = await self.guard.client.threads.get_state(self.guard.thread.id)
                self.plan = continue_plan(dict(self.state))
        except (AgentServerError, Refused) as exc:
            if choice == "continue":
                code = exc.code if isinstance(exc, Refused) else type(exc).__name__
                self.guard.refuse(code, str(exc.message) if isinstance(exc, Refused) else str(exc))
                self._fresh_choice()
                return False
            self.guard.view.status(f"The agent server could not be told to cancel the run: {exc}")
        self.left = choice
        return True

    def _fresh_choice(self) -> None:
        if self._choice is not None and self._choice.done():
            self._choice = asyncio.get_running_loop().create_future()


async def _abandon(pending: asyncio.Future[Any] | None, iterator: AsyncIterator[Any]) -> None:
    """Stop reading a stream left before its end: the read in flight is cancelled, the stream closed."""
    if pending is not None and not pending.done():
        pending.cancel()
        await asyncio.wait({pending})
    aclose = getattr(iterator, "aclose", None)
    if aclose is not None:
        await aclose()
