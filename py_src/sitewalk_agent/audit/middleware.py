"""`AuditMiddleware`: every tool call the agent runs (headless or server tool) gets an audit record.

It wraps the tool call (outermost, so an unknown tool's typed refusal is recorded too) and appends
the record once the call has an outcome. A headless tool's interrupt passes through untouched: the
call is recorded when the browser's answer has come back, not when it was asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from sitewalk_agent.audit.record import record_tool_call

__all__ = ["AuditMiddleware"]


class AuditMiddleware(AgentMiddleware):
    """Records each finished tool call in the thread's audit chain (see `sitewalk_agent.audit`).

    `reviewed`: names of tools gated by per-call review; their calls carry their decision's status,
    revision and args hash (the decision itself is its own `review_decision` record, written first);
    the others are `review_not_required`.
    """

    def __init__(self, reviewed: frozenset[str] | set[str] = frozenset()) -> None:
        super().__init__()
        self.reviewed = frozenset(reviewed)

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]
                              ) -> ToolMessage | Command:
        result = await handler(request)
        call = request.tool_call
        status = "reviewed" if call["name"] in self.reviewed else "review_not_required"
        runtime = request.runtime
        await record_tool_call(getattr(runtime, "store", None), getattr(runtime, "config", None), request.state,
                               dict(call), result, review_status=status)
        return result
