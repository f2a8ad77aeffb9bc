"""The kit in one call: the middleware that adds Sitewalk's browser capabilities to a `create_agent` agent."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

from sitewalk.contracts.tools import ToolContract
from sitewalk_agent.middleware import GenerativeUiMiddleware, HeadlessToolsMiddleware, UiActionsMiddleware

__all__ = ["sitewalk_middleware"]


def sitewalk_middleware(contracts: list[ToolContract] | None = None) -> list[AgentMiddleware[Any]]:
    """Headless tools (default: every contract Sitewalk's browser implements), screens, ConfirmButton actions."""
    return [HeadlessToolsMiddleware(contracts), GenerativeUiMiddleware(), UiActionsMiddleware()]
