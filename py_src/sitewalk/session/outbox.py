"""Delivery of a resume command once, whatever the network does.

When the server cannot be reached the answers stay in the outbox (the answer book already holds
them on the device), the app is told how many wait, and delivery waits for the network. The
outcome of a request that went out without an answer is unknown, so before sending again the
thread's state is read: only the interrupts it still waits on are sent; if it took them all, the
run it started is followed instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base.server_errors import ServerUnreachable
from .stream import RunStream, Streamed
from .thread import Thread, WaitForNetwork

__all__ = ["Outbox"]


class Outbox:
    def __init__(self, client: AgentServerClient, thread: Thread, stream: RunStream, wait: WaitForNetwork,
                 on_waiting: Callable[[int], None] | None = None) -> None:
        self.client = client
        self.thread = thread
        self.stream = stream
        self.wait = wait
        self.on_waiting = on_waiting  # how many answers wait for the network (0: none any more)

    async def deliver(self, resume: Mapping[str, object]) -> Streamed:
        """Resume the run with `{interrupt_id: answer}`, each answer taken by the server once;
        return what the stream of the run it resumed said."""
        waiting = dict(resume)
        attempt = 0
        try:
            while True:
                try:
                    return await self.stream.run(command={"resume": waiting})
                except ServerUnreachable:
                    attempt += 1
                    self._tell(len(waiting))
                    await self.wait(attempt)
                    still = await self._still_waiting()
                    if still is None:
                        continue  # not reachable yet: send the same again
                    waiting = {iid: answer for iid, answer in waiting.items() if iid in still}
                    if not waiting:  # the lost request had reached the server
                        return await self.stream.follow_latest()
        finally:
            if attempt:
                self._tell(0)

    async def _still_waiting(self) -> set[str] | None:
        """The interrupt ids the thread still waits on; None when the server is still out of reach."""
        try:
            state = await self.client.threads.get_state(self.thread.id)
        except ServerUnreachable:
            return None
        return {interrupt["id"] for interrupt in pending_interrupts(state)}

    def _tell(self, waiting: int) -> None:
        if self.on_waiting is not None:
            self.on_waiting(waiting)
