"""The inspector's follow-up messages on the current thread, one run at a time, none lost.

The agent server takes one run per thread (multitask strategy `reject`), so a message written while
a run of this session is active waits in the outbox ("waiting until the agent finishes") and goes
out when the run ends. A message the server refuses for want of a sign-in (401: the token was
revoked or expired) waits too ("sign in to send"): the app's sign-in form comes up, and the outbox
is sent once the inspector has signed in again and the inspection carries on. A message is not
sent over a question the agent is waiting on either (the inspector answers it first: the message
waits and the view says why), nor while another tab's run holds the thread (409). Each message
carries its own id: when a request got no answer (the network dropped, or a 401 came after its run
had started), the thread's messages tell whether it arrived, so it is never sent twice. The outbox
is kept on the device (`kept_messages`): after a reload, `restore` puts it back, ids and all, and it
goes out once the thread is idle. A time-travel press waits (`settled`) until the session's run and the
messages that waited for it are done.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base.server_errors import Conflict, ServerUnreachable, Unauthorized
from .kept_messages import KeptMessages, Outgoing
from .loop import RunLoop
from .stream import RunStream
from .thread import Thread, WaitForNetwork
from .view import View

__all__ = ["WAITING_FOR_RUN", "WAITING_FOR_SIGN_IN", "Conversation", "Outgoing", "show_user_text"]

WAITING_FOR_RUN = "waiting until the agent finishes"
WAITING_FOR_ANSWER = "the agent is waiting for your answer on the screen: answer it first"
WAITING_FOR_OTHER_RUN = "another run is active on this inspection (another tab?): sent once it ends"
WAITING_FOR_NETWORK = "waiting for the network"
WAITING_FOR_SIGN_IN = "waiting: sign in to send (the agent server no longer accepts your sign-in)"


OnOutbox = Callable[[list[Outgoing], str], None]
"""Told the messages that wait (empty: none) and why they wait."""


class Conversation:
    def __init__(self, client: AgentServerClient, thread: Thread, view: View, loop: RunLoop, stream: RunStream,
                 wait: WaitForNetwork, on_outbox: OnOutbox | None = None, kept: KeptMessages | None = None) -> None:
        self.client = client
        self.thread = thread
        self.view = view
        self.loop = loop
        self.stream = stream
        self.wait = wait
        self.on_outbox = on_outbox
        self.outbox: list[Outgoing] = []
        self.kept = kept  # the outbox on the device (None: in memory only)
        self._active = 0  # runs of this session in progress (start, rejoin, a press, a message)
        self._busy = 0  # those runs with the sending of what waited for them (what `settled` waits out)
        self._idle = asyncio.Event()  # set while nothing is busy
        self._idle.set()
        self.press_waiting = False  # a time-travel press waits for it to settle (one at a time)

    @property
    def active(self) -> bool:
        return self._active > 0

    @property
    def busy(self) -> bool:
        """A run of this session, or the sending of the messages that waited for one, is going on."""
        return self._busy > 0

    async def settled(self, within_s: float) -> bool:
        """Wait up to `within_s` until nothing of this session is busy; whether nothing is."""
        try:
            await asyncio.wait_for(self._idle.wait(), within_s)
        except TimeoutError:
            return False
        return True

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Around any run of this session: messages sent meanwhile wait for its end, then go."""
        async with self._busy_while():
            async with self._run():
                yield
            if not self._active:
                await self.flush()

    async def say(self, text: str, message_id: str | None = None) -> str:
        """Send a message: 'sent', or 'waiting' (kept in the outbox, the view told why); '' when empty."""
        text = text.strip()
        if not text:
            return ""
        self.outbox.append(Outgoing(message_id or f"user-{uuid.uuid4().hex[:16]}", text))
        self._keep()
        if self.active:
            self._tell(WAITING_FOR_RUN)
            return "waiting"
        async with self._busy_while():
            await self.flush()
        return "waiting" if self.outbox else "sent"

    async def flush(self) -> None:
        """Send what waits, oldest first, while the thread can take it; stop (and say why) when not."""
        attempt = 0
        while self.outbox and not self.active:
            message = self.outbox[0]
            try:
                why = await self._blocked(message)
                if why is None:
                    show_user_text(self.view, message.id, message.text)
                    async with self._run():
                        await self.loop.run(input={"messages": [_human(message)]})
                    self.outbox.pop(0)
                    self._keep()
                    attempt = 0
                elif why:
                    self._tell(why)
                    return
            except Conflict:
                self._tell(WAITING_FOR_OTHER_RUN)
                return
            except Unauthorized:  # the sign-in form is up; if it had arrived, the next flush finds it by id
                self._tell(WAITING_FOR_SIGN_IN)
                return
            except ServerUnreachable:
                attempt += 1
                self._tell(WAITING_FOR_NETWORK)
                await self.wait(attempt)
        self._tell("")

    def restore(self) -> None:
        """Put back the messages kept on the device (after a reload), oldest first, behind any still held
        in memory; they go out at the next flush. What cannot be read is reported, then dropped."""
        if self.kept is None:
            return
        kept, errors = self.kept.load()
        for error in errors:  # on the status line, and in the console (the status line moves on)
            self.view.status(f"{type(error).__name__}: {error}")
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
        held = {m.id for m in self.outbox}
        self.outbox.extend(m for m in kept if m.id not in held)
        self._keep()  # only now is a bad entry gone from the device
        if self.outbox:
            self._tell(WAITING_FOR_RUN if self.active else "")

    def _keep(self) -> None:
        if self.kept is not None:
            self.kept.save(self.outbox)

    @asynccontextmanager
    async def _busy_while(self) -> AsyncIterator[None]:
        self._busy += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._busy -= 1
            if not self._busy:
                self._idle.set()

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[None]:
        """A run of this session (for a message's own: later messages wait for it; the flush that sent it goes
        on after)."""
        self._active += 1
        try:
            yield
        finally:
            self._active -= 1

    async def _blocked(self, message: Outgoing) -> str | None:
        """Why `message` cannot go now (None: it can; '': it arrived already and left the outbox)."""
        state = await self.client.threads.get_state(self.thread.id)
        values = state.get("values") or {}
        if any(isinstance(m, dict) and m.get("id") == message.id for m in values.get("messages") or []):
            self.outbox.pop(0)  # an earlier attempt reached the server: show its run, send no copy
            self._keep()
            await self.stream.follow_latest()
            return ""
        if pending_interrupts(state):
            return WAITING_FOR_ANSWER
        return None

    def _tell(self, why: str) -> None:
        if why:
            self.view.status(f"{len(self.outbox)} message(s) {why}")
        if self.on_outbox is not None:
            self.on_outbox(list(self.outbox), why if self.outbox else "")


def show_user_text(view: View, message_id: str, text: str) -> None:
    """The inspector's words in the transcript."""
    view.user_text(message_id, text)


def _human(message: Outgoing) -> dict[str, Any]:
    return {"type": "human", "id": message.id, "content": message.text}
