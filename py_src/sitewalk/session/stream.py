"""One run's stream to the view: the transcript, tool calls and screen as they happen.

A dropped connection is rejoined where it broke, without showing an event twice
(`agentserver.rejoin`). What the stream said of the thread is kept (`Streamed`), so that the run
loop can answer the interrupts it raised without reading the state again. A stream that goes silent
after an interruption is watched (`stuck.StuckGuard`): a run no worker carries any more is shown
stuck, and Continue runs on from the thread's newest checkpoint in its place.

Each `messages` event is assembled once (`calls.run_stream.RunStreamCalls`): fed as it comes, and what it
changed taken at most once an animation frame (`frames.FrameGate`), so the call board and the screen get
one change per call or message a frame, not one per fragment. What was fed is taken before any other event
is shown (a `values` event settles calls that must have been shown first) and when the stream ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agentserver.client import AgentServerClient, StreamPart
from ..agentserver.rejoin import stream_with_rejoin
from ..agentserver.schema import Interrupt, StreamMode, ThreadState
from ..base import trace_hooks
from ..base.frames import FRAME_S, FrameGate
from ..calls.run_stream import RunStreamCalls
from ..calls.view import CallView, TextView
from ..screen_feed import ScreenFeed
from .calls import CallBoard
from .progress import ContinueKind
from .stuck import StuckGuard, Watched
from .thread import Thread, WaitForNetwork
from .view import View

__all__ = ["STREAM_MODES", "RunStream", "Streamed"]

STREAM_MODES: tuple[StreamMode, ...] = ("values", "updates", "messages-tuple")


@dataclass
class Streamed:
    """What one run's stream said of the thread: its last values and the interrupts it raised."""

    values: dict[str, Any] | None = None
    interrupts: list[Interrupt] = field(default_factory=list)
    whole: bool = False  # the stream ran to its end
    dropped: bool = False  # the connection dropped at least once (rejoined), or it was joined late

    def state(self) -> dict[str, Any] | None:
        """The thread's state as the stream ended, when the stream is the whole story (else None:
        after a drop a rejoin may have missed an event, so the server's state must be read)."""
        if not self.whole or self.dropped or self.values is None:
            return None
        return {"values": self.values, "interrupts": self.interrupts}


class RunStream:
    def __init__(self, client: AgentServerClient, thread: Thread, view: View, screen: ScreenFeed,
                 calls: CallBoard, wait: WaitForNetwork, guard: StuckGuard | None = None,
                 frame_s: float = FRAME_S) -> None:
        self.client = client
        self.thread = thread
        self.view = view
        self.screen = screen
        self.calls = calls
        self.wait = wait
        self.guard = guard or StuckGuard(client, thread, view)
        self.frame_s = frame_s  # how often what the stream brought is shown (0: each event at once)

    async def run(self, run_id: str | None = None, **run_kwargs: object) -> Streamed:
        """Stream a new run (or, with `run_id`, join one already going from its start) to the view."""
        streamed = Streamed(dropped=run_id is not None)  # a joined stream may lack early events
        reader = RunStreamCalls()  # each messages event assembled once: text per message, arguments per call
        frames = FrameGate(lambda: self._changes(reader.take()), self.frame_s)
        watched = self.guard.watching(run_id)

        def dropped(attempt: int) -> None:
            streamed.dropped = True
            watched.interrupted()
            self.view.status(f"Connection lost: rejoining the run (attempt {attempt})")

        trace_hooks.run_from(self.thread.id, run_kwargs)  # a run from a checkpoint: the fork's own trace
        source = stream_with_rejoin(self.client, self.thread.id, self.thread.assistant_id, run_id=run_id,
                                    wait=self.wait, on_drop=dropped, stream_mode=trace_hooks.stream_modes(STREAM_MODES),
                                    **run_kwargs)
        try:
            async for part in watched.parts(source):
                if part.event.split("|", 1)[0] == "messages":  # a subgraph's carries its namespace: `messages|<ns>`
                    reader.feed(part)
                    frames.soon()
                else:
                    frames.now()  # what came before this event is shown before it
                    self._show(part, streamed)
        finally:
            frames.cancel()  # nothing is shown once the stream is gone but what follows
        self._changes(reader.end_all())  # what the last frame had not taken, and the messages left open
        if watched.left is not None:  # left before its end: the state is the story from here
            return await self._after_leaving(watched)
        streamed.whole = True
        return streamed

    async def _after_leaving(self, watched: Watched) -> Streamed:
        """A stuck run's Continue runs on from the newest checkpoint; otherwise (cancelled, ended, or
        Continue with nothing to run) the caller reads the thread's state and answers what waits."""
        if watched.plan is not None and watched.plan.kind is ContinueKind.RERUN:
            self.view.status("Continuing from the last checkpoint")
            return await self.run(input=None, checkpoint_id=watched.plan.checkpoint_id)
        if watched.state is not None:
            self.show_state(watched.state)
        return Streamed(dropped=True)

    async def follow_latest(self) -> Streamed:
        """The server took a request whose stream was lost before it began: show the run it started
        from its first event (runs are resumable, so their events are kept), then the state."""
        runs = await self.client.runs.list(self.thread.id, limit=1)
        streamed = await self.run(run_id=runs[0]["run_id"]) if runs else Streamed(dropped=True)
        # the server may have dropped the run's events already: its state has the outcome anyway
        self.show_state(await self.client.threads.get_state(self.thread.id))
        return streamed

    def forget(self) -> None:
        """Forget the calls, messages and screens shown (the view is drawn anew from a state)."""
        self.calls.forget()
        self.screen.forget()

    def show_state(self, state: ThreadState) -> None:
        """How the calls ended and the screen on record, from a state read from the server."""
        trace_hooks.thread(self.thread.id, state)  # its checkpoint: the one the screen on record was read at
        values = state.get("values") or {}
        self.calls.settle(values.get("messages") or [], values.get("call_outcomes"))
        self.screen.server_spec(values.get("ui_spec"))

    def _show(self, part: StreamPart, streamed: Streamed) -> None:
        kind = part.event.split("|", 1)[0]
        if kind == "values" and isinstance(part.data, dict):
            streamed.values = part.data
            self.calls.settle(part.data.get("messages") or [], part.data.get("call_outcomes"))
            self.screen.server_spec(part.data.get("ui_spec"))
        elif kind == "updates" and isinstance(part.data, dict):
            streamed.interrupts.extend(part.data.get("__interrupt__") or [])
        elif part.event == trace_hooks.CHECKPOINTS:  # asked for only while tracing: the step's checkpoint
            trace_hooks.checkpoint(self.thread.id, part.data)

    def _changes(self, changes: list[CallView | TextView]) -> None:
        """What a frame's events changed, to the call board and the screen."""
        for change in changes:
            if isinstance(change, TextView):
                self.screen.text(change)
                continue
            if change.error is None:  # bad arguments stay shown as collecting (as before issue 28)
                self.calls.show(change.call_id, change.name or "?", change.status)
            self.calls.args(change)
            self.screen.call(change)
