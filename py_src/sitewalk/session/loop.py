"""The run loop: stream a run, and keep resuming it while it waits on headless tools this device answers.

When the run is over (or failed: `StreamError`), the timeline is read again and where the inspection now
is goes to the status line (`status_report`), unless the inspector cancelled it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ..base import trace_hooks
from ..base.server_errors import StreamError
from .answers import Answers, HeadlessAnswers
from .cancel import Cancellation
from .history import TimelineFeed
from .outbox import Outbox
from .status_report import StatusReport
from .stream import RunStream, Streamed

__all__ = ["MAX_RESUMES", "RunLoop"]

MAX_RESUMES = 20  # a run that keeps interrupting is a bug in the graph; stop rather than loop


class RunLoop:
    def __init__(self, stream: RunStream, answers: HeadlessAnswers, outbox: Outbox, timeline: TimelineFeed,
                 cancellation: Cancellation, status: StatusReport | None = None) -> None:
        self.stream = stream
        self.answers = answers
        self.outbox = outbox
        self.timeline = timeline
        self.cancellation = cancellation
        self.status = status

    async def run(self, **run_kwargs: Any) -> None:
        """Stream one run (`input=...`, or `command=...` for a decision), answer the headless tools
        it waits on, resume, repeat; then show the timeline and where the inspection is."""
        async with self._reported():
            await self._carry_on(await self.stream.run(**run_kwargs))

    async def join(self, run_id: str) -> None:
        """Follow a run already going (e.g. after a reload) from its first event, then carry on as `run` does."""
        async with self._reported():
            await self._carry_on(await self.stream.run(run_id=run_id))

    async def resume(self, answers: Answers) -> None:
        """Deliver answers found waiting (e.g. after a reload), then carry on as `run` does."""
        async with self._reported():
            await self._carry_on(await self._deliver(answers))

    @asynccontextmanager
    async def _reported(self) -> AsyncIterator[None]:
        """Around a run: once it is over, where the inspection is; a failed run's steps and reason too."""
        try:
            yield
        except StreamError as error:  # the server ended the run in error: what it did up to there, and why
            await self.timeline.refresh()
            await self.report(error)
            raise
        finally:
            trace_hooks.flush()  # the run's device spans go now (offline: with the next run)
        await self.report()

    async def report(self, error: StreamError | None = None) -> None:
        if self.status is not None and not self.cancellation.cancelled:
            await self.status.report(error)

    async def _carry_on(self, streamed: Streamed) -> None:
        for _ in range(MAX_RESUMES):
            if self.cancellation.cancelled:
                break
            answers = await self.answers.pending(streamed.state())
            if not answers:
                break
            streamed = await self._deliver(answers)
        await self.timeline.refresh()

    async def _deliver(self, answers: Answers) -> Streamed:
        streamed = await self.outbox.deliver(answers)
        await self.answers.delivered(answers)
        trace_hooks.flush()
        return streamed
