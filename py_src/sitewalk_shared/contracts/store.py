"""Where a user's items live in the Agent Server's Store: one layout that both servers keep as it is.

Aegra's store API files every namespace a caller names under `("users", <identity>)`, unless it
already starts there (`aegra_api.api.store.apply_namespace_scoping`); `langgraph dev` stores what it
is given. Graph code writes to the store directly, beside the API, so a namespace the graph writes
and a client reads must already start with `("users", <identity>)`: then both servers store, serve
and report it unchanged. Without sign-in everyone is `anonymous` (`sitewalk_agent.auth`).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ANONYMOUS", "USERS", "namespace_owner", "user_namespace"]

USERS = "users"
ANONYMOUS = "anonymous"
"""The identity of everyone when the server has no sign-in."""


def user_namespace(identity: str | None, *parts: str) -> tuple[str, ...]:
    """`("users", <identity>, *parts)`; no identity (no sign-in) is `anonymous`."""
    return (USERS, identity or ANONYMOUS, *parts)


def namespace_owner(namespace: Sequence[str]) -> str | None:
    """The identity a namespace belongs to, or None when it does not start with `("users", <identity>)`."""
    if len(namespace) >= 2 and namespace[0] == USERS and namespace[1]:
        return str(namespace[1])
    return None
