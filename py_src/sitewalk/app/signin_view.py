"""The sign-in panel: the form when the agent server answers 401, then who is signed in and Sign out.

The panel stays hidden on a server without sign-in (no 401 ever comes). `required` is the client's
`on_unauthorized`: any request the server refuses (the list, a run, the audit trail...) brings the form
up once; whatever is on the page stays as it is. A refused token shows the typed error and the form
again (`sitewalk.signin`). Signed in, the app carries on (`on_signed_in`: the list, the inspection that
was open); Sign out forgets the token (`on_signed_out`: the app reloads, signed out).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..base.server_errors import Unauthorized
from ..bridge import dom, tasks
from ..bridge.presses import on_press
from ..signin import SignIn, SignInError
from ..ui.templating import render_template

__all__ = ["SignInView"]

PANEL = "sw-signin"
ASKED = "The agent server asks you to sign in."
REFUSED = "The agent server no longer accepts your sign-in (expired or revoked): sign in again."


class SignInView:
    def __init__(self, signin: SignIn, on_signed_in: Callable[[], Awaitable[None]],
                 on_signed_out: Callable[[], None]) -> None:
        self.signin = signin
        self.on_signed_in = on_signed_in
        self.on_signed_out = on_signed_out
        self.asking = False  # the form is up: a further 401 must not redraw it under the inspector's typing

    def attach(self) -> None:
        tasks.on(PANEL, "submit", self._on_submit)
        on_press(PANEL, "button[data-sw-signin='sign-out']", self._on_click)
        if self.signin.identity is not None:
            self._draw()

    def required(self, _error: Unauthorized) -> None:
        """The server refused a request for want of a sign-in: forget the token it refused, ask (once)."""
        reason = REFUSED if self.signin.identity is not None else ASKED
        self.signin.forget()
        if not self.asking:
            self.asking = True
            self._draw(reason=reason)

    def _draw(self, reason: str = ASKED, error: SignInError | None = None) -> None:
        panel = dom.element(PANEL)
        dom.set_html(PANEL, render_template("signin.j2", identity=self.signin.identity, reason=reason,
                                            error=str(error) if error else None,
                                            error_code=type(error).__name__ if error else None))
        panel.hidden = not (self.asking or self.signin.identity is not None)
        if self.asking:
            dom.element("sw-token").focus()

    def _on_submit(self, event: Any) -> Any:
        event.preventDefault()  # now, before the page would navigate: the sign-in itself runs as a task
        return self._submit()

    async def _submit(self) -> None:
        button = dom.element("sw-signin-submit")
        button.disabled = True
        try:
            await self.signin.sign_in(str(dom.element("sw-token").value))
        except SignInError as exc:
            self._draw(reason=str(dom.element("sw-signin-reason").textContent), error=exc)
            return
        self.asking = False
        self._draw()
        dom.show_status(f"Signed in as {self.signin.identity.display_name if self.signin.identity else '?'}.")
        await self.on_signed_in()

    def _on_click(self, event: Any) -> None:
        button = dom.closest(event.target, "button[data-sw-signin='sign-out']")
        if button is not None:
            self.signin.forget()
            self.on_signed_out()
