"""Time travel on one thread: replay from a step, fork by editing a message or a value, preview a restore.

- Replay runs the graph again from a past checkpoint (`input: null` + the checkpoint): nodes after it
  run again and interrupts fire again; the run loop answers the headless tools like new ones (so a
  corrected draft is read anew). From a final checkpoint (no `next`) there is nothing to run: the
  inspector is told so and no run starts.
- Fork writes at a past checkpoint with `update_state(..., as_node=...)` and runs from the checkpoint
  it made. Editing a message of the inspector writes it under the same message id at the checkpoint
  before it (as the node that wrote it, `__start__` for input), as `useStream` branches do.
- Every run of either (and of `edits`) first draws the live view anew from the state it starts from
  (`run_from`): the transcript up to that step and that step's screen, then the run streams on top, so
  the page ends as a reopen of the thread would show it, never the old branch's messages with the new
  ones after them.
- Each checks first, and changes nothing when refused: the checkpoint must be one of this thread's
  (`UnknownCheckpoint`), and no run may be going on the thread (`RunActive`; a run of this session the
  server has ended, whose end the page is still reading, is waited for). A replay whose step goes on
  with a device tool this device has denied (its browser permission) is refused before it starts
  (`ReplayWouldBeDeclined`), unless the inspector may type the answer instead (the position): then
  the preview and the timeline say so up front (`session/blocked.py`). A decline only the run can
  reveal (what the model calls when it runs again, a typed answer the inspector does not give) ends
  the replay with `ReplayDeclined`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sitewalk_shared.contracts.workorders import work_orders_namespace

from ...agentserver.client import AgentServerClient
from ...agentserver.schema import RunStatus, ThreadState
from ...base.server_errors import AgentServerError, HTTPStatusError
from ...timeline import (
    ReplayDeclined,
    RestorePreview,
    RunActive,
    UnknownCheckpoint,
    called_after,
    check_actions,
    device_calls_ahead,
    restore_preview,
)
from ...timeline.preview import RecordsUnreadable
from ..blocked import Blocked, blocked_ahead, refuse_declined, typed_notices
from ..conversation import Conversation
from ..history import TimelineFeed
from ..loop import RunLoop
from ..parts import ThreadParts
from ..restore import redraw_view

__all__ = ["NOTHING_TO_REPLAY", "WAITING_FOR_WRAP_UP", "TimeTravel"]

NOTHING_TO_REPLAY = "Nothing to replay: this step is the end of its run (it has no next step)."
WAITING_FOR_WRAP_UP = "Waiting for the page to finish the last run, then this goes on."
_QUIET_S = 0.5  # a wrap-up this short goes unannounced
_DECLINED = {"permission_denied", "declined"}


class TimeTravel:
    """Replay and fork on the thread of `parts`, through `client` (the session's own, handed in)."""

    wrap_up_s = 20.0  # how long a press waits for this session to finish a run before it is refused

    def __init__(self, client: AgentServerClient, parts: ThreadParts) -> None:
        self.client = client
        self.thread = parts.thread
        self.loop: RunLoop = parts.loop
        self.stream = parts.stream
        self.reviews = parts.reviews
        self.timeline: TimelineFeed = parts.timeline
        self.conversation: Conversation = parts.conversation
        self.answers = parts.answers
        self.questions = parts.questions

    async def preview(self, checkpoint_id: str) -> RestorePreview:
        """What going back to `checkpoint_id` replaces, and the external actions it would not undo."""
        await self.load_to(checkpoint_id)
        preview = restore_preview(self.timeline.tree, self.thread.id, checkpoint_id)
        if self.answers.registry.permissions is not None:  # what the inspector will be asked to type
            state = await self.client.threads.get_state(self.thread.id, checkpoint_id)
            preview = replace(preview, typed=typed_notices(await self._blocked(checkpoint_id, state)))
        return await check_actions(preview, self.work_order)

    async def load_to(self, checkpoint_id: str) -> None:
        """Page the timeline back until `checkpoint_id` is loaded: a step pressed on a list a run's end has
        since drawn anew from its newest page. UnknownCheckpoint for a stranger."""
        if checkpoint_id not in self.timeline.tree:
            await self.state_at(checkpoint_id)  # raises UnknownCheckpoint for a stranger
        while checkpoint_id not in self.timeline.tree and not self.timeline.tree.exhausted:
            loaded = len(self.timeline.tree)
            await self.timeline.older()  # one of this thread's, further back: page to it
            if len(self.timeline.tree) == loaded:
                break

    async def work_order(self, key: str) -> dict[str, Any] | None:
        """The ticket system's record of a work order, as the agent mirrors it into the Store."""
        namespace = work_orders_namespace(self.thread.owner)
        item = await self.client.store.get_item(namespace, key)
        value = (item or {}).get("value")
        if isinstance(value, dict):
            return dict(value)
        # "new" only when the mirror is there to be read: a store API that shows none of it (another
        # namespace layout, another owner) is not the same as the ticket system having no order
        if not await self.client.store.search_items(namespace, limit=1):
            raise RecordsUnreadable(f"no work-order records readable under {'/'.join(namespace)}")
        return None

    async def replay(self, checkpoint_id: str) -> str:
        """Run again from `checkpoint_id`: 'replayed', or 'nothing' when it has no next step."""
        state = await self.state_at(checkpoint_id)
        await self.ensure_idle()
        if not state.get("next"):
            self.timeline.notice(NOTHING_TO_REPLAY)
            return "nothing"
        blocked = await self._blocked(checkpoint_id, state)
        refuse_declined(blocked)
        if notices := typed_notices(blocked):
            self.timeline.notice(" ".join(notices))
        await self.run_from(checkpoint_id)
        return "replayed"

    async def _blocked(self, checkpoint_id: str, state: ThreadState) -> list[Blocked]:
        """The device calls going on from `checkpoint_id` would ask under a denied permission: those the
        step goes on with, and those the steps it replaces made (the model runs again and makes them anew).

        A call this device has answered is not asked again (its recorded answer is sent), so only the
        calls it has not answered count: one left waiting (a cancelled run, another tab) or a fork's."""
        registry = self.answers.registry
        if registry.permissions is None:
            return []
        calls = device_calls_ahead(state, registry.names)
        tree = self.timeline.tree
        if checkpoint_id in tree and tree.live_head is not None:
            replaced = restore_preview(tree, self.thread.id, checkpoint_id).replaced
            calls += [(tool, "") for tool in called_after(replaced, registry.names)]
        return await blocked_ahead(self.answers, calls)

    async def edit_message(self, message_id: str, text: str) -> str:
        """Resend an earlier message of the inspector, edited, as a new branch; returns the new checkpoint."""
        step = next((s for s in self.timeline.tree.steps(self.timeline.head)
                     if s.facts.last is not None and s.facts.last.type == "human" and s.facts.last.id == message_id),
                    None)
        if step is None or not step.facts.parent_id:
            raise UnknownCheckpoint(f"message {message_id}", self.thread.id)
        state = await self.state_at(step.id)
        message = next(m for m in state["values"].get("messages") or [] if m.get("id") == message_id)
        as_node = step.node if step.node not in ("input", "loop", "update", "fork", "") else "__start__"
        return await self.fork(step.facts.parent_id, {"messages": [{**message, "content": text}]}, as_node)

    async def fork(self, checkpoint_id: str, values: dict[str, Any], as_node: str) -> str:
        """Write `values` at `checkpoint_id` as `as_node`, run from the new checkpoint; returns its id."""
        await self.state_at(checkpoint_id)
        await self.ensure_idle()
        made = await self.client.fork(self.thread.id, checkpoint_id, values, as_node=as_node)
        await self.run_from(made["checkpoint_id"])
        return made["checkpoint_id"]

    async def run_from(self, checkpoint_id: str | None = None, checkpoint: dict[str, Any] | None = None) -> None:
        """Run from one of the graph's checkpoints (its id), or from a subgraph's (the whole checkpoint object)."""
        before = set(self.answers.outcomes)
        where: dict[str, Any] = {"checkpoint": checkpoint} if checkpoint is not None \
            else {"checkpoint_id": checkpoint_id}
        async with self.conversation.running():
            await self.redraw_from(checkpoint_id, checkpoint)
            try:
                await self.loop.run(input=None, **where)
            except AgentServerError:
                await self._redraw_as_it_is()
                raise
            await self.questions.refresh()  # a question the run stopped at (the site walk) gets its card
            await self.reviews.refresh()  # and the reviews it waits on; an old branch's cards go
        for call_id, envelope in self.answers.outcomes.items():
            error = envelope.get("error") if call_id not in before else None
            if isinstance(error, dict) and error.get("code") in _DECLINED:
                raise ReplayDeclined(str(envelope.get("tool", "")), call_id, str(error.get("code")))

    async def _redraw_as_it_is(self) -> None:
        """A run that failed: the page shows the thread as it is (whatever the run got to, if anything),
        or stays as it was when the server cannot be read either."""
        try:
            redraw_view(await self.client.threads.get_state(self.thread.id), self.stream.view, self.stream)
        except AgentServerError:
            pass

    async def redraw_from(self, checkpoint_id: str | None = None, checkpoint: dict[str, Any] | None = None) -> None:
        """Draw the live view anew from the state a run is about to start from (before its first event): at
        `checkpoint_id`, or for a subgraph's checkpoint object the graph's checkpoint its map names (where
        the graph resumes). A run from a checkpoint that is not `run_from`'s calls this first."""
        if checkpoint is not None:
            checkpoint_id = str((checkpoint.get("checkpoint_map") or {}).get("") or "") or None
        state = await self.client.threads.get_state(self.thread.id, checkpoint_id)
        redraw_view(state, self.stream.view, self.stream)

    async def read_state(self, checkpoint_id: str) -> ThreadState:
        """The thread's state at `checkpoint_id` as the server answers it, unchecked (a step's details)."""
        return await self.client.threads.get_state(self.thread.id, checkpoint_id)

    async def state_at(self, checkpoint_id: str) -> ThreadState:
        """The thread's state at `checkpoint_id`; UnknownCheckpoint when it is not one of this thread's."""
        try:
            state = await self.client.threads.get_state(self.thread.id, checkpoint_id)
        except HTTPStatusError as error:
            if error.status in (404, 422, 400):
                raise UnknownCheckpoint(checkpoint_id, self.thread.id) from error
            raise
        found = (state.get("checkpoint") or {}).get("checkpoint_id")
        # The in-memory server answers an unknown (or another thread's) id with an empty state that
        # echoes the id: a real checkpoint always has its metadata and creation time.
        if found != checkpoint_id or not state.get("metadata") or not state.get("created_at"):
            raise UnknownCheckpoint(checkpoint_id, self.thread.id)
        return state

    async def ensure_idle(self) -> None:
        """No run may be going on the thread (`RunActive`). A run of this session that the server has ended
        while the page still finishes it (reads its question cards, its reviews, sends the messages that waited
        for it) is waited for, up to `wrap_up_s`: a press right after the screen showed the run's end is not
        refused for what the inspector cannot see. A run the server has going is refused at once."""
        await self._no_run_on_server()
        if not self.conversation.busy:
            return
        if self.conversation.press_waiting:  # two presses let go at once would fork twice
            raise RunActive(self.thread.id, "of this session")
        self.conversation.press_waiting = True
        try:
            await self._wait_for_wrap_up()
        finally:
            self.conversation.press_waiting = False
        await self._no_run_on_server()  # another tab's, started meanwhile

    async def _wait_for_wrap_up(self) -> None:
        if await self.conversation.settled(_QUIET_S):
            return
        self.timeline.notice(WAITING_FOR_WRAP_UP)
        settled = await self.conversation.settled(self.wrap_up_s)
        self.timeline.notice("")
        if not settled:
            raise RunActive(self.thread.id, "of this session")

    async def _no_run_on_server(self) -> None:
        statuses: tuple[RunStatus, ...] = ("running", "pending")
        for status in statuses:
            runs = await self.client.runs.list(self.thread.id, status=status, limit=1)
            if runs:
                raise RunActive(self.thread.id, runs[0]["run_id"])
