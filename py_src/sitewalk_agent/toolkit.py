"""The kit in one call: the middleware that adds Sitewalk's browser capabilities to a `create_agent` agent."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

from sitewalk_agent.audit.middleware import AuditMiddleware
from sitewalk_agent.field_actions import FieldActionsMiddleware
from sitewalk_agent.middleware import GenerativeUiMiddleware, HeadlessToolsMiddleware, UiActionsMiddleware
from sitewalk_agent.review import REVIEWED_TOOLS, ReviewMiddleware
from sitewalk_shared.contracts.tools import ToolContract

__all__ = ["field_review_middleware", "sitewalk_middleware"]


def sitewalk_middleware(contracts: list[ToolContract] | None = None) -> list[AgentMiddleware[Any]]:
    """Headless tools (default: every contract Sitewalk's browser implements), screens, ConfirmButton actions,
    and the audit chain (first: it wraps every tool call, so each is recorded once it has an outcome)."""
    return [AuditMiddleware(reviewed=set(REVIEWED_TOOLS)), HeadlessToolsMiddleware(contracts),
            GenerativeUiMiddleware(), UiActionsMiddleware()]


def field_review_middleware() -> list[AgentMiddleware[Any]]:
    """The inspection's field actions (work orders, notices, photos), each call reviewed by a person first."""
    return [FieldActionsMiddleware(), ReviewMiddleware()]
