"""`AuditMiddleware`: every tool call the agent runs (headless or server tool) gets an audit record.

It wraps the tool call (outermost, so an unknown tool's typed refusal is recorded too) and appends
the record once the call has an outcome. A headless tool's interrupt passes through untouched: the
call is recorded when the browser's answer has come back, not when it was asked.

The new head {seq, hash} also goes into the thread's state (`audit_head`, written with the tool's
result, so it is checkpointed with the step): `verify` compares the store's chain with it, and a tail
cut off the store together with its head pointer shows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from sitewalk_agent.audit.record import record_tool_call
from sitewalk_shared.contracts.audit import STATE_HEAD, committed_head, later_head

__all__ = ["AuditMiddleware", "AuditState", "with_head"]


class AuditState(AgentState):
    audit_head: NotRequired[Annotated[dict[str, object] | None, later_head]]
    """The audit chain's head {seq, hash} as of this checkpoint (`sitewalk_shared.contracts.audit.STATE_HEAD`)."""


def with_head(result: ToolMessage | Command, record: Mapping[str, object] | None) -> ToolMessage | Command:
    """The tool's result, also committing the record just appended as the state's audit head."""
    if record is None:
        return result
    head = {STATE_HEAD: committed_head(record)}
    if isinstance(result, ToolMessage):
        return Command(update={"messages": [result], **head})
    if isinstance(result, Command) and isinstance(result.update, dict):
        return dataclasses.replace(result, update={**result.update, **head})
    return result  # a Command of another shape: left as it is (its step commits no head)


class AuditMiddleware(AgentMiddleware[AuditState]):
    """Records each finished tool call in the thread's audit chain (see `sitewalk_agent.audit`).

    `reviewed`: names of tools gated by per-call review; their calls carry their decision's status,
    revision and args hash (the decision itself is its own `review_decision` record, written first);
    the others are `review_not_required`.
    """

    state_schema = AuditState

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
        record = await record_tool_call(getattr(runtime, "store", None), getattr(runtime, "config", None),
                                        request.state, dict(call), result, review_status=status)
        return with_head(result, record)
