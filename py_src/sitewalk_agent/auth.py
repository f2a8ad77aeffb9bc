"""Who may do what on the agent server: inspectors sign in with a bearer token, and own what they create.

langgraph.json names `auth` (this module's `auth`), and both servers use it: `langgraph dev` and
Aegra. It is active only when the environment variable SITEWALK_TOKENS names a token file:

    {"<token>": {"identity": "ana", "display_name": "Ana Ortiz"}, ...}

Then every request needs `Authorization: Bearer <token>` (401 otherwise); a thread is stamped with
its creator's identity in `metadata.owner` (on create, on a run, and again on every update, so
no request can write another owner there) and every thread action (read, search, update, runs,
history, state, fork, join, cancel) is filtered by it, so another inspector gets 404; the store
API only serves namespaces under `("users", <the caller's identity>)` (`sitewalk_shared.contracts.store`), and
no one may put or delete in an audit trail (`sitewalk_agent.audit`), signed in or not;
assistants can be read and searched by everyone and changed by no one through the API; anything
else is refused (403).

Without SITEWALK_TOKENS (the embedded default, and the e2e suite today) everyone is one
`anonymous` user and nothing is filtered, exactly as before auth existed. The server then says so once,
in one warning line of its log (`OPEN_SERVER_WARNING`), when it imports this module: `langgraph dev` at
start, Aegra at its first request. Anyone who can reach it may read and run every inspection, which is
fine on loopback and wrong on a deployed server.

The file is read when the server imports this module, and again when it changes (`token_file`:
checked at most once a second, off the event loop), so a token removed from it is refused without a
restart; a token file that cannot be read or is malformed at start stops the server with
TokenFileError. Tokens are looked up by their SHA-256. To plug in a real identity provider, replace
`_inspector_for` with a check of the provider's token (e.g. an OIDC JWT: verify its signature with
the provider's keys and map `sub` to the identity); the ownership rules below stay as they are.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from langgraph_sdk import Auth

from sitewalk_agent.audit.store_lock import LOCK_LABEL
from sitewalk_agent.token_file import TokenFile, TokenFileError, load_tokens
from sitewalk_shared.contracts.audit import NAMESPACE as AUDIT_NAMESPACE
from sitewalk_shared.contracts.store import ANONYMOUS as ANONYMOUS_IDENTITY
from sitewalk_shared.contracts.store import namespace_owner

__all__ = ["OPEN_SERVER_WARNING", "OWNER", "TOKENS_ENV", "TokenFileError", "auth", "load_tokens"]

TOKENS_ENV = "SITEWALK_TOKENS"
OWNER = "owner"
AUDIT_NAMESPACES = (AUDIT_NAMESPACE, (AUDIT_NAMESPACE[0], LOCK_LABEL))
# Thread actions whose request carries metadata the server writes onto the thread: create, a run (which
# may create its thread), and update (PATCH /threads/{id}; also update_state, whose metadata is unused).
STAMPED = ("create", "create_run", "update")
ANONYMOUS: Auth.types.MinimalUserDict = {"identity": ANONYMOUS_IDENTITY, "display_name": "Anonymous"}
OPEN_SERVER_WARNING = (f"sign-in is off ({TOKENS_ENV} is not set): this agent server is open to anyone who can "
                       f"reach it, every request runs as the one anonymous user; set {TOKENS_ENV} to a token file "
                       "before exposing it beyond this machine (docs/deploy.md#sign-in-tokens)")

log = logging.getLogger(__name__)


def _tokens_from_env() -> TokenFile | None:
    """The token file SITEWALK_TOKENS names; without one, None and the open-server warning, logged once
    (this runs once per server process, when the server imports the auth module)."""
    path = os.environ.get(TOKENS_ENV, "").strip()
    if not path:
        log.warning(OPEN_SERVER_WARNING)
        return None
    return TokenFile(path)


TOKENS = _tokens_from_env()
auth = Auth()


Headers = Mapping[str, str] | Mapping[bytes, bytes]
"""A request's headers as either server passes them: langgraph dev bytes, Aegra str."""


def _header(headers: Headers, name: str) -> str | None:
    """One header from either server's dict: langgraph dev gives bytes keys and values, Aegra str."""
    for key, value in headers.items():
        text_key = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if text_key.lower() == name:
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return None


async def _inspector_for(authorization: str | None) -> Auth.types.MinimalUserDict | None:
    assert TOKENS is not None
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return await TOKENS.inspector(token.strip())


@auth.authenticate
async def authenticate(headers: Headers) -> Auth.types.MinimalUserDict:
    """The caller's identity from `Authorization: Bearer <token>` (a parameter named `headers`: langgraph
    dev passes it by that name, Aegra as the one argument)."""
    if TOKENS is None:
        return ANONYMOUS
    inspector = await _inspector_for(_header(headers, "authorization"))
    if inspector is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail="sign in: Authorization: Bearer <token>")
    return inspector


def _forbidden(what: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=f"not allowed: {what}")


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: object) -> None:
    """Default deny (crons and anything without a rule of its own), when auth is on."""
    if TOKENS is not None:
        raise _forbidden(f"{ctx.resource}.{ctx.action}")


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: object) -> Auth.types.FilterType | None:
    """A new thread (or run) is stamped with its creator; every thread action sees only the caller's."""
    if TOKENS is None:
        return None
    identity = ctx.user.identity
    if ctx.action in STAMPED and isinstance(value, dict):
        _stamp_owner(value, identity)
    return {OWNER: identity}


def _stamp_owner(value: dict[str, object], identity: str) -> None:
    """The owner the server set, over whatever the caller wrote in the request's metadata. In place: the
    servers keep using the dict they passed (a new one would be ignored). An update merges its metadata
    into the thread's, so without this a caller could hand his own thread to another inspector; a request
    that names another owner is refused (403), not quietly corrected, so the client knows it was not done."""
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        metadata = value["metadata"] = {}
    if metadata.get(OWNER, identity) != identity:
        raise _forbidden("a thread's owner is the inspector signed in; it cannot be set to another")
    metadata[OWNER] = identity


@auth.on.assistants
async def read_only_assistants(ctx: Auth.types.AuthContext, value: object) -> None:
    if TOKENS is not None and ctx.action not in ("read", "search"):
        raise _forbidden(f"assistants.{ctx.action}")


def _store_namespace(value: object) -> tuple[str, ...]:
    """The namespace a store request names: `namespace`, or for a search on Aegra `namespace_prefix`
    (langgraph dev passes a search's prefix as `namespace`)."""
    if not isinstance(value, dict):
        return ()
    return tuple(value.get("namespace") or value.get("namespace_prefix") or ())


def _audit_labels(namespace: tuple[str, ...]) -> bool:
    """Whether a namespace is (under) an audit trail or its lock, with or without the `users/<id>` prefix
    (Aegra files an unprefixed one under the caller's)."""
    rest = namespace[2:] if namespace_owner(namespace) is not None else namespace
    return tuple(rest[:2]) in AUDIT_NAMESPACES


@auth.on.store()
async def own_namespaces(ctx: Auth.types.AuthContext, value: object) -> None:
    """Store items live under `("users", <owner's identity>, ...)`. The audit trail is read-only through the
    API for everyone, with or without sign-in: only the graph writes it, in process (a trail its subject
    could edit would prove nothing)."""
    if ctx.action in ("put", "delete") and _audit_labels(_store_namespace(value)):
        raise _forbidden("the audit trail is written by the agent only")
    if TOKENS is None:
        return
    if namespace_owner(_store_namespace(value)) != ctx.user.identity:
        raise _forbidden("store namespaces must start with users/<your identity>")
