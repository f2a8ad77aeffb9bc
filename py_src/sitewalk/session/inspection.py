"""`InspectionSession`: one inspection's conversation with the agent, composed of the parts of this
package (see its docstring)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sitewalk_shared.contracts.headless_wire import Envelope

from ..agentserver.client import AgentServerClient
from ..headless.registry import HeadlessToolRegistry
from ..screen_feed import ScreenFeed
from .cancel import Cancellation, cancel_server_runs
from .conversation import show_user_text
from .parts import DeviceHooks, ScreenHooks, ThreadParts
from .progress import parse_choice
from .questions import PendingQuestion
from .refusals import Refused
from .restore import restore_view
from .reviews import PendingReview
from .thread import ASSISTANT_ID, Thread
from .view import View

if TYPE_CHECKING:
    from .travel import TimeTravel

__all__ = ["InspectionSession"]


class InspectionSession:
    def __init__(self, client: AgentServerClient, registry: HeadlessToolRegistry, view: View,
                 device_hooks: DeviceHooks | None = None, screen_hooks: ScreenHooks | None = None,
                 assistant_id: str = ASSISTANT_ID) -> None:
        self.client = client
        self.registry = registry
        self.view = view
        self.device_hooks = device_hooks or DeviceHooks()  # what the device keeps, who is signed in, waiting
        self.screen_hooks = screen_hooks or ScreenHooks()  # where cards, panels and the status line are shown
        self.assistant_id = assistant_id
        self.screen = ScreenFeed(view)  # what the streams say of the screen and the transcript
        self.cancellation = Cancellation()
        self.parts: ThreadParts | None = None  # built once the thread exists

    def time_travel(self) -> TimeTravel | None:
        """Replay and fork on this session's thread, through its own client (None: no thread yet)."""
        from .travel import TimeTravel  # the timeline's controls need it, at the first press

        return TimeTravel(self.client, self.parts) if self.parts is not None else None

    async def start(self, inspection_id: str, note: str = "", metadata: Mapping[str, object] | None = None) -> None:
        """A new thread for the inspection (its metadata: the inspection id, and `metadata`, e.g. the
        device id the list of inspections is found by), and its first run (with this device's tool manifest)."""
        thread = await self.client.threads.create(metadata={**(metadata or {}), "inspection_id": inspection_id})
        parts = self._on(thread["thread_id"])
        if self.device_hooks.on_thread is not None:
            self.device_hooks.on_thread(parts.thread.id)
        self.view.status(f"Inspection {inspection_id}: thread {parts.thread.id}")
        text = f"Start inspection {inspection_id}" + (f"\n{note}" if note else "")
        message_id = f"user-{uuid.uuid4().hex[:16]}"
        show_user_text(self.view, message_id, text)
        async with parts.conversation.running():
            await parts.loop.run(input={"messages": [{"type": "human", "id": message_id, "content": text}],
                                        "inspection_id": inspection_id, "client_tools": self.registry.manifest()})

    async def rejoin(self, thread_id: str) -> bool:
        """Carry on with a thread after a reload: answer what it still waits on (each call once).

        Returns whether the thread was waiting on this device.
        """
        parts = self._on(thread_id)
        async with parts.conversation.running():
            parts.conversation.restore()  # messages kept on the device wait for this run, then go
            answers = await parts.answers.pending()
            if answers:
                await parts.loop.resume(answers)
            else:
                await parts.timeline.refresh()
                await parts.loop.report()
        return bool(answers)

    async def reopen(self, thread_id: str) -> None:
        """Show a thread as the server has it (transcript, screen, pending calls and questions, timeline),
        then carry on: follow its run if one is going, answer the headless tools it waits on."""
        parts = self._on(thread_id)
        async with parts.conversation.running():
            parts.conversation.restore()  # messages kept on the device wait for this run, then go
            restore_view(await self.client.threads.get_state(thread_id), self.view, parts.stream)
            running = await self.client.runs.list(thread_id, status="running", limit=1)
            if running:
                await parts.loop.join(running[0]["run_id"])
                return
            answers = await parts.answers.pending()
            if answers:
                await parts.loop.resume(answers)
            else:
                await parts.timeline.refresh()
                await parts.loop.report()  # where it is, though nothing ran

    async def say(self, text: str) -> str:
        """The inspector's message on the current thread: 'sent', 'waiting' (kept in the outbox), or
        'no-thread' (nothing to talk to yet: start or open an inspection)."""
        if self.parts is None:
            return "no-thread"
        return await self.parts.conversation.say(text)

    async def act(self, element_id: str, action: str, subject: str = "") -> dict[str, Any] | None:
        """A ConfirmButton was pressed (see `actions.UiActions`); None before a thread exists."""
        if self.parts is None:
            return None
        async with self.parts.conversation.running():
            return await self.parts.actions.act(element_id, action, subject)

    async def cancel(self) -> None:
        """The inspector cancelled: end the tool in progress (nothing is sent) and the server's run."""
        self.cancellation.cancel()
        if self.parts is not None:
            await cancel_server_runs(self.client, self.parts.thread.id)

    def resolve_stuck(self, choice: str) -> None:
        """The inspector's choice for the run shown stuck: 'cancel' or 'continue' (carried out by the
        stream that watches it). Refused when the choice is unknown or no run is stuck."""
        chosen = parse_choice(choice)
        if self.parts is None:
            raise Refused("not_stuck", "no inspection is open")
        self.parts.stream.guard.choose(chosen)
        if chosen == "cancel":
            self.cancellation.cancel()

    async def review(self, decisions: dict[str, dict[str, Any]]) -> list[Refused]:
        """Send review decisions `{interrupt_id: decision}` (see `reviews`); the refused ones come back."""
        if self.parts is None:
            return []
        async with self.parts.conversation.running():
            return await self.parts.reviews.submit(decisions)

    async def answer(self, interrupt_id: str, raw: object) -> Refused | None:
        """Answer a question of the agent's (see `questions`); the refusal when nothing was sent."""
        if self.parts is None:
            return None
        async with self.parts.conversation.running():
            return await self.parts.questions.answer(interrupt_id, raw)

    async def show_questions(self) -> list[PendingQuestion]:
        """Show the questions the thread waits on, read from the server (after a run, a reload, a reopen)."""
        return [] if self.parts is None else await self.parts.questions.refresh()

    async def show_reviews(self) -> list[PendingReview]:
        """Show the reviews the thread waits on, read from the server (after a run, a reload, a reconnect)."""
        return [] if self.parts is None else await self.parts.reviews.refresh()

    @property
    def thread_id(self) -> str | None:
        return None if self.parts is None else self.parts.thread.id

    @property
    def cancelled(self) -> bool:
        return self.cancellation.cancelled

    @property
    def outcomes(self) -> dict[str, Envelope]:
        """tool_call_id -> the envelope this device answered."""
        return {} if self.parts is None else self.parts.answers.outcomes

    @property
    def spec_identity(self) -> dict[str, Any] | None:
        """The server's identity of the screen shown (what a ConfirmButton's action names)."""
        return self.screen.spec_identity

    def _on(self, thread_id: str) -> ThreadParts:
        if self.parts is None or self.parts.thread.id != thread_id:
            thread = Thread(thread_id, self.assistant_id, owner=self.device_hooks.owner())
            self.parts = ThreadParts.build(self.client, thread, self.registry, self.view, self.screen,
                                           self.cancellation, self.device_hooks, self.screen_hooks)
        return self.parts
