"""`whoami`: a one-step graph that answers who the server says the caller is.

The app's sign-in form runs it as a stateless run (`POST /runs/wait`, assistant `whoami`) once a
token is entered: the answer is the identity the server's auth handler gave the request
(`langgraph_auth_user`, the same `actor` the audit records name), so the name the app shows is the
server's, never what the browser typed. The Agent Server API has no "who am I" endpoint of its own,
and a graph reads the auth context the same way on `langgraph dev` and on Aegra.
"""

from __future__ import annotations

import sys
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

# The server loads this file by path: make `sitewalk_agent` importable without installing it.
_PY_SRC = str(Path(__file__).resolve().parent.parent)
if _PY_SRC not in sys.path:
    sys.path.insert(0, _PY_SRC)

from sitewalk_agent.audit.context import actor  # noqa: E402

__all__ = ["Identity", "graph"]


class Identity(TypedDict, total=False):
    identity: str
    """The authenticated identity (empty when the server has no sign-in)."""
    display_name: str
    """The name to show for it."""
    authenticated: bool
    """False when the server has no sign-in (everyone is one anonymous user)."""


def answer(state: Identity, config: RunnableConfig) -> Identity:
    """Who the run's auth context names (the input is not read: only the server's word counts)."""
    who = actor(config)
    return {"identity": who["identity"], "display_name": who["display_name"],
            "authenticated": bool(who["authenticated"])}


_builder = StateGraph(Identity)
_builder.add_node("answer", answer)
_builder.add_edge(START, "answer")
_builder.add_edge("answer", END)
graph = _builder.compile(name="whoami")
