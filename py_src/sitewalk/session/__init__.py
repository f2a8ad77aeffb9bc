"""One inspection's conversation with the agent, in parts with one job each.

- `RunStream` (stream.py): one run's stream to the view, rejoined after a drop;
- `RunLoop` (loop.py): stream, answer the headless tools, resume, repeat; then the timeline;
- `HeadlessAnswers` (answers.py): what to send for each headless interrupt, each call once, with
  its answer book and egress log;
- `Outbox` (outbox.py): delivery that waits for the network and re-reads the thread before resending;
- `UiActions` (actions.py): a ConfirmButton's request; `TimelineFeed` (history.py): the history;
- `Cancellation` (cancel.py): the inspector's Cancel; `CallBoard` (calls.py): tool calls on the view.

`InspectionSession` composes them: it holds no thread until one exists, then builds the parts
for it. Pure orchestration: the agent server through `AgentServerClient`, the screen through a
`View`, so the same code runs in the browser and under CPython tests.
"""

from __future__ import annotations

from typing import Any

from ..agentserver.client import AgentServerClient
from ..headless.delivery import ContractMismatch
from ..headless.registry import HeadlessToolRegistry
from ..screen_feed import ScreenFeed
from .cancel import Cancellation, cancel_server_runs
from .parts import Hooks, ThreadParts
from .thread import ASSISTANT_ID, Thread
from .view import View

__all__ = ["ASSISTANT_ID", "Hooks", "InspectionSession", "Thread", "View"]


class InspectionSession:
    def __init__(self, client: AgentServerClient, registry: HeadlessToolRegistry, view: View,
                 hooks: Hooks | None = None, assistant_id: str = ASSISTANT_ID) -> None:
        self.client = client
        self.registry = registry
        self.view = view
        self.hooks = hooks or Hooks()
        self.assistant_id = assistant_id
        self.screen = ScreenFeed(view)  # what the streams say of the screen and the transcript
        self.cancellation = Cancellation()
        self.parts: ThreadParts | None = None  # built once the thread exists

    async def start(self, inspection_id: str, note: str = "") -> None:
        """A new thread for the inspection, and its first run (with this device's tool manifest)."""
        thread = await self.client.threads.create(metadata={"inspection_id": inspection_id})
        parts = self._on(thread["thread_id"])
        if self.hooks.on_thread is not None:
            self.hooks.on_thread(parts.thread.id)
        self.view.status(f"Inspection {inspection_id}: thread {parts.thread.id}")
        text = f"Start inspection {inspection_id}" + (f"\n{note}" if note else "")
        await parts.loop.run(input={"messages": [{"role": "user", "content": text}], "inspection_id": inspection_id,
                                    "client_tools": self.registry.manifest()})

    async def rejoin(self, thread_id: str) -> bool:
        """Carry on with a thread after a reload: answer what it still waits on (each call once).

        Returns whether the thread was waiting on this device.
        """
        parts = self._on(thread_id)
        answers = await parts.answers.pending()
        if answers:
            await parts.loop.resume(answers)
        else:
            await parts.timeline.refresh()
        return bool(answers)

    async def act(self, element_id: str, action: str, subject: str = "") -> dict[str, Any] | None:
        """A ConfirmButton was pressed (see `actions.UiActions`); None before a thread exists."""
        return None if self.parts is None else await self.parts.actions.act(element_id, action, subject)

    async def cancel(self) -> None:
        """The inspector cancelled: end the tool in progress (nothing is sent) and the server's run."""
        self.cancellation.cancel()
        if self.parts is not None:
            await cancel_server_runs(self.client, self.parts.thread.id)

    @property
    def thread_id(self) -> str | None:
        return None if self.parts is None else self.parts.thread.id

    @property
    def cancelled(self) -> bool:
        return self.cancellation.cancelled

    @property
    def outcomes(self) -> dict[str, dict[str, Any]]:
        """tool_call_id -> the envelope this device answered."""
        return {} if self.parts is None else self.parts.answers.outcomes

    @property
    def contract_mismatches(self) -> list[ContractMismatch]:
        return [] if self.parts is None else self.parts.answers.mismatches

    @property
    def spec_identity(self) -> dict[str, Any] | None:
        """The server's identity of the screen shown (what a ConfirmButton's action names)."""
        return self.screen.spec_identity

    def _on(self, thread_id: str) -> ThreadParts:
        if self.parts is None or self.parts.thread.id != thread_id:
            self.parts = ThreadParts.build(self.client, Thread(thread_id, self.assistant_id), self.registry,
                                           self.view, self.screen, self.cancellation, self.hooks)
        return self.parts
