"""UI actions: a ConfirmButton's request, sent as the resume of the run that awaits it.

The browser never performs the business action: the agent authorizes the request against its
state (this screen, this button, this action, an unused key) and acts. The key names the screen
and the button, so pressing again (or a retry) is a replay the agent ignores. Without a network
the request waits for it, then is sent once: if an earlier attempt did reach the agent (its reply
was lost), the recorded outcome is shown, not a replay. A press the server refuses for want of a
sign-in (401: the token was revoked or expired) says so on the button (`sign_in_required`): once
signed in it is pressed again, and its key makes sure the agent acts once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..agentserver.schema import Interrupt, ThreadState
from ..base.server_errors import ServerUnreachable, Unauthorized
from ..screen_feed import ScreenFeed
from .loop import RunLoop
from .stream import RunStream
from .thread import Thread, WaitForNetwork
from .view import View

__all__ = ["SIGN_IN_REQUIRED", "ActionRequest", "UiActions", "action_request"]

SIGN_IN_REQUIRED = "sign_in_required"


@dataclass(frozen=True)
class ActionRequest:
    """What a press asks of the agent, worked out from the thread's state."""

    waiting: Interrupt | None  # the interrupt that awaits a decision (None: the agent does not wait)
    body: dict[str, Any]  # the resume value: {type: ui_action, action, identity, element_id, idempotency_key}
    taken: dict[str, Any] | None  # the agent's record of this very key, when it acted on it already


def action_request(state: ThreadState, shown_identity: Mapping[str, object] | None, element_id: str,
                   action: str) -> ActionRequest:
    """The request for a press on `element_id` of the screen shown (its identity, else the awaiting one's)."""
    waiting = next((i for i in pending_interrupts(state)
                    if isinstance(i["value"], dict) and i["value"].get("type") == "ui_action_request"), None)
    identity = shown_identity or (waiting["value"].get("identity") if waiting else None) or {}
    key = f"ui:{identity.get('tool_call_id')}:{element_id}:{action}"
    done = (state.get("values") or {}).get("ui_actions") or []
    taken = next((a for a in done if isinstance(a, dict) and a.get("idempotency_key") == key), None)
    body = {"type": "ui_action", "action": action, "identity": identity, "element_id": element_id,
            "idempotency_key": key}
    return ActionRequest(waiting, body, taken)


class UiActions:
    def __init__(self, client: AgentServerClient, thread: Thread, view: View, screen: ScreenFeed, loop: RunLoop,
                 stream: RunStream, wait: WaitForNetwork) -> None:
        self.client = client
        self.thread = thread
        self.view = view
        self.screen = screen
        self.loop = loop
        self.stream = stream
        self.wait = wait
        self._acting = False  # one press at a time: a second press while one is sent does nothing

    async def act(self, element_id: str, action: str, subject: str = "") -> dict[str, Any] | None:
        """Send a press; return the agent's result ({status: done | replayed | refused, ...}), or
        None when nothing was sent (the agent does not wait, or a press is already on its way)."""
        if self._acting:
            return None
        self._acting = True
        try:
            attempt = 0
            while True:
                try:
                    return await self._send(element_id, action, resent=attempt > 0)
                except Unauthorized:  # the sign-in form is up; the key makes a press after it act once
                    self.view.status(f"{action}: not sent: sign in, then press it again")
                    self.view.action_result(element_id, SIGN_IN_REQUIRED)
                    return {"status": SIGN_IN_REQUIRED}
                except ServerUnreachable:
                    attempt += 1
                    self.view.status(f"{action}: waiting for the network; it is sent once the network is back")
                    self.view.action_result(element_id, "waiting")
                    await self.wait(attempt)
        finally:
            self._acting = False

    async def _send(self, element_id: str, action: str, resent: bool) -> dict[str, Any] | None:
        state = await self.client.threads.get_state(self.thread.id)
        request = action_request(state, self.screen.spec_identity, element_id, action)
        if resent and request.taken is not None:  # an attempt that seemed lost reached the agent
            await self.stream.follow_latest()
            return self._done(element_id, action, {**request.taken, "status": "done"})
        if request.waiting is None:
            self.view.status(f"{action}: the agent is not waiting for a decision")
            return None
        await self.loop.run(command={"resume": {request.waiting["id"]: request.body}})
        after = await self.client.threads.get_state(self.thread.id)
        return self._done(element_id, action, (after.get("values") or {}).get("ui_action_result") or {})

    def _done(self, element_id: str, action: str, result: dict[str, Any]) -> dict[str, Any]:
        status = str(result.get("status") or "unknown")
        detail = result.get("reason") or (result.get("result") or {}).get("work_order") or ""
        self.view.status(f"{action}: {status}" + (f" ({detail})" if detail else ""))
        self.view.action_result(element_id, status)
        return result
