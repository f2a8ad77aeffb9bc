"""What a record says about where and by whom: thread, run, checkpoint, interrupt, and the actor.

Read from the RunnableConfig LangGraph gives a node or tool (and the graph state), never from what
the browser claims, except the inspector's name on a server without auth (marked unauthenticated).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TypedDict

from langchain_core.runnables import RunnableConfig

from sitewalk_agent.upstream import interrupt_id, step_checkpoint_id
from sitewalk_shared.contracts.store import ANONYMOUS

__all__ = ["Actor", "RunContext", "actor", "interrupt_id_for", "now", "owner_of", "run_context"]


class Actor(TypedDict):
    """Who acted, as a record's `reviewer` (and a UI action's `by`) names them."""

    identity: str
    display_name: str
    authenticated: bool


class RunContext(TypedDict):
    """Where a record was written: the fields as the config and state carry them (not checked)."""

    task_id: object
    thread_id: object
    run_id: str | None
    checkpoint_id: object


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _configurable(config: RunnableConfig | None) -> dict[str, object]:
    return dict((config or {}).get("configurable") or {})


def _field(user: object, name: str) -> object:
    """A field of the server's user: an object on both servers (langgraph dev, Aegra), a dict once stored."""
    return user.get(name) if isinstance(user, dict) else getattr(user, name, None)


def _auth_identity(config: RunnableConfig | None) -> tuple[str, str] | None:
    """(identity, display name) of `langgraph_auth_user`, the user object both servers put there from
    the auth handler's answer, over anything the request carried. Not `langgraph_auth_user_id` or
    `user_id`: Aegra copies a run's configurable from the request, so those two can be forged."""
    user = _configurable(config).get("langgraph_auth_user")
    identity = _field(user, "identity") if user is not None else None
    if not isinstance(identity, str) or not identity or identity == ANONYMOUS:
        return None
    display = _field(user, "display_name")
    return identity, str(display or identity)


def owner_of(config: RunnableConfig | None) -> str | None:
    """The authenticated identity (the owner in the audit namespace), else None (no sign-in)."""
    found = _auth_identity(config)
    return found[0] if found else None


def _inspector_in(state: Mapping[str, object] | None) -> str:
    """The inspector named by the last draft the device sent (read_local_draft's result), or ""."""
    messages = (state or {}).get("messages") or []
    for message in reversed(list(messages) if isinstance(messages, list | tuple) else []):
        if getattr(message, "type", None) == "tool" and getattr(message, "name", None) == "read_local_draft":
            try:
                result = json.loads(str(message.content)).get("result") or {}
            except (ValueError, AttributeError):
                return ""
            return str(result.get("inspector") or "") if isinstance(result, dict) else ""
    return ""


def actor(config: RunnableConfig | None, state: Mapping[str, object] | None = None, claimed: str | None = None
          ) -> Actor:
    """Who acted: the authenticated user where the server has auth; otherwise the name the device gave
    (`claimed`, `configurable.inspector`, or the draft's inspector), marked `authenticated: false`."""
    found = _auth_identity(config)
    if found:
        identity, display = found
        return {"identity": identity, "display_name": display, "authenticated": True}
    name = claimed or _configurable(config).get("inspector") or _inspector_in(state) or ""
    return {"identity": str(name)[:120], "display_name": str(name)[:120], "authenticated": False}


def interrupt_id_for(config: RunnableConfig | None, answered: int = 0) -> str | None:
    """The id the server gives the interrupt raised in this task (LangGraph derives it from the task's
    checkpoint namespace and how many answers the task had). None outside a graph task."""
    ns = _configurable(config).get("checkpoint_ns")
    if not isinstance(ns, str) or not ns:
        return None
    return interrupt_id(ns, answered)


def run_context(config: RunnableConfig | None, state: Mapping[str, object] | None = None) -> RunContext:
    """task (the inspection), thread, run and checkpoint of the current graph task."""
    conf = _configurable(config)
    run_id = (config or {}).get("run_id") or conf.get("run_id")
    checkpoint_id = conf.get("checkpoint_id")
    if not checkpoint_id:  # task configs carry checkpoint_id None; the runtime knows the step's checkpoint
        checkpoint_id = step_checkpoint_id(conf)
    return {"task_id": (state or {}).get("inspection_id"), "thread_id": conf.get("thread_id"),
            "run_id": str(run_id) if run_id else None, "checkpoint_id": checkpoint_id}
