"""Signing in to an agent server that has sign-in (pure: no browser imports; the form is `app.signin_view`).

When the server answers 401 the app asks for a token. `SignIn.sign_in(token)` checks its form here,
sends it with every request of the client from then on (`AgentServerClient.set_token`), and asks the
server who it belongs to: a stateless run of the `whoami` graph (`sitewalk_agent.whoami`), which
answers with the identity the server's auth handler gave the request, the same one its audit records
name. Only a token the server accepted is kept on the device (the settings store: localStorage in the
browser), under a key of its own per server, with the identity to show. Without sign-in on the server
nothing here is used: no 401 ever comes, no form shows, no token is sent.

Refusals are typed (`SignInError`): a token that cannot be one is refused before anything is sent
(`TokenInvalid`); the server's 401 is `TokenRefused`; a server that could not be asked, or that has no
sign-in, is `SignInUnavailable`. A refused or unverified token is forgotten, never kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from sitewalk_shared.errors import SitewalkError

from .agentserver.client import AgentServerClient
from .base.device_storage import KeyValueStore
from .base.server_errors import AgentServerError, Unauthorized

__all__ = ["WHOAMI", "Identity", "SignIn", "SignInError", "SignInUnavailable", "TokenInvalid", "TokenRefused",
           "check_token"]

WHOAMI = "whoami"
SETTING = "sitewalk:sign-in:"  # + the server's URL: {"token", "identity", "display_name"}
MAX_TOKEN = 4096
# RFC 6750's b64token: what a bearer token may contain (a header value must be plain ASCII anyway).
B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


class SignInError(SitewalkError):
    """Signing in did not work; the message says why, in words for the inspector."""


class TokenInvalid(SignInError, ValueError):
    """The text cannot be a token (empty, spaces inside, other characters, too long): nothing was sent."""


class TokenRefused(SignInError):
    """The agent server does not accept the token (401): wrong, expired or revoked."""


class SignInUnavailable(SignInError):
    """The agent server could not be asked who the token belongs to, or it has no sign-in."""


@dataclass(frozen=True)
class Identity:
    identity: str
    display_name: str


def check_token(text: str) -> str:
    """The token as it will be sent (surrounding blanks removed); TokenInvalid when it cannot be one."""
    token = str(text or "").strip()
    if not token:
        raise TokenInvalid("Enter your sign-in token.")
    if len(token) > MAX_TOKEN:
        raise TokenInvalid(f"That is longer than a sign-in token can be ({MAX_TOKEN} characters at most).")
    if not B64TOKEN.fullmatch(token):
        raise TokenInvalid("That is not a sign-in token: a token has no spaces, only letters, digits and - . _ ~ + / "
                           "(and = at the end).")
    return token


def _identity_of(answer: object) -> Identity:
    """The whoami graph's answer as an Identity; SignInUnavailable when it names nobody signed in."""
    if not isinstance(answer, dict) or not isinstance(answer.get("identity"), str):
        raise SignInUnavailable("The agent server did not say who you are (is its `whoami` graph served?).")
    if not answer.get("authenticated") or not answer["identity"]:
        raise SignInUnavailable("This agent server has no sign-in: no token is needed.")
    return Identity(answer["identity"], str(answer.get("display_name") or answer["identity"]))


class SignIn:
    """The sign-in of this device to one agent server."""

    def __init__(self, client: AgentServerClient, settings: KeyValueStore, assistant_id: str = WHOAMI) -> None:
        self.client = client
        self.settings = settings
        self.assistant_id = assistant_id
        self.key = SETTING + client.base_url
        self.identity: Identity | None = None

    def owner(self) -> str | None:
        """The signed-in identity (what the server names the owner of this inspector's things), or None."""
        return self.identity.identity if self.identity is not None else None

    def restore(self) -> Identity | None:
        """The sign-in kept on this device for this server, sent from now on; None when there is none."""
        try:
            kept = json.loads(self.settings.get(self.key) or "null")
            token, identity = check_token(kept["token"]), Identity(str(kept["identity"]), str(kept["display_name"]))
        except (ValueError, TypeError, KeyError):  # none, or not ours: start signed out
            self.forget()
            return None
        self.client.set_token(token)
        self.identity = identity
        return identity

    async def sign_in(self, text: str) -> Identity:
        """Check the token, ask the server whose it is, keep it: the identity the server answered."""
        token = check_token(text)
        self.client.set_token(token)
        try:
            identity = _identity_of(await self.client.runs.wait(None, self.assistant_id, input={}))
        except Unauthorized as exc:
            self.forget()
            raise TokenRefused("The agent server does not accept this token: it is wrong, expired or revoked.") \
                from exc
        except AgentServerError as exc:
            self.forget()
            raise SignInUnavailable(f"Could not sign in: {exc}") from exc
        except SignInUnavailable:
            self.forget()
            raise
        self.settings.set(self.key, json.dumps({"token": token, "identity": identity.identity,
                                                "display_name": identity.display_name}))
        self.identity = identity
        return identity

    def forget(self) -> None:
        """Signed out: the token leaves the device and is sent no more."""
        self.settings.remove(self.key)
        self.client.set_token(None)
        self.identity = None
