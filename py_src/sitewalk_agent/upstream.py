"""Every private LangChain and LangGraph name the agent relies on, and why, in this one module.

No public API gives these yet; each is wrapped here so the rest of the agent uses public names only,
and tests/unit/test_upstream_contract.py fails loudly (name gone, signature changed, behaviour
changed) before a LangChain or LangGraph release can break review or audit quietly. pyproject.toml
bounds both packages below their next minor version; raising a bound means running that test.

- `HumanInTheLoopMiddleware._resolve_per_call` (langchain): in `interrupt_mode="per_call"`,
  `awrap_tool_call` asks it for each gated call "run this request (maybe edited) or answer with this
  message". Sitewalk's review checks every answer (args revision, hash, the tool's contract) and asks
  again on a refusal; that loop has to sit at this step, so `PerCallReview` overrides it once and
  calls the public-named `resolve_call` instead.
- `HumanInTheLoopMiddleware._tool_approval_request` / `._apply_edit` (langchain): the interrupt value
  LangChain builds for a call (`ToolApprovalRequest`, its description factory included) and the
  request pointed at the reviewer's edited call; reused so Sitewalk's cards and edits stay LangChain's.
- `human_in_the_loop._answer_message` (langchain): the `ToolMessage` the model gets for a rejected
  call, with LangChain's wording and notification metadata.
- `langgraph.types._interrupt_id` (langgraph): how the server numbers a task's interrupts (by the
  answers it had); the audit record names the interrupt a decision answered by that id.
- `langgraph._internal._constants.CONFIG_KEY_RUNTIME` (langgraph): where a task's config keeps the
  `Runtime`, whose `execution_info` knows the step's checkpoint when the config's `checkpoint_id` is
  None (the audit record's checkpoint).
"""

from __future__ import annotations

from collections.abc import Mapping

from langchain.agents.middleware import HumanInTheLoopMiddleware, InterruptOnConfig
from langchain.agents.middleware.human_in_the_loop import (
    Action,
    RejectDecision,
    RespondDecision,
    ToolApprovalRequest,
    _answer_message,
)
from langchain_core.messages import ToolCall, ToolMessage
from langgraph._internal._constants import CONFIG_KEY_RUNTIME
from langgraph.prebuilt.tool_node import ToolCallRequest

__all__ = ["PerCallReview", "answer_message", "interrupt_id", "step_checkpoint_id"]

Resolved = tuple[ToolCallRequest, Action | None] | ToolMessage


class PerCallReview(HumanInTheLoopMiddleware):
    """`HumanInTheLoopMiddleware` whose per-call step is `resolve_call` (LangChain's, unless overridden)."""

    def _resolve_per_call(self, request: ToolCallRequest) -> Resolved:  # the private step, overridden here only
        return self.resolve_call(request)

    def resolve_call(self, request: ToolCallRequest) -> Resolved:
        """One gated call: the request to run and the reviewer's edited call (or None), or the message
        the model gets instead of running it."""
        return super()._resolve_per_call(request)

    def approval_request(self, request: ToolCallRequest, config: InterruptOnConfig) -> ToolApprovalRequest:
        """LangChain's interrupt value for this call (a new one each time)."""
        return self._tool_approval_request(request, config)

    def apply_edit(self, request: ToolCallRequest, executed: Action) -> ToolCallRequest:
        """The request pointed at the reviewer's edited call."""
        return self._apply_edit(request, executed)


def answer_message(tool_call: ToolCall, decision: RejectDecision | RespondDecision) -> ToolMessage:
    """LangChain's message to the model for a rejected (or answered-for) call."""
    return _answer_message(tool_call, decision)


def interrupt_id(checkpoint_ns: str, answered: int) -> str | None:
    """The id LangGraph gives the interrupt a task raises after `answered` answers; None on a LangGraph
    without the function (the audit record then leaves the id out rather than guess)."""
    try:
        from langgraph.types import _interrupt_id
    except ImportError:  # pragma: no cover - guarded by the contract test and the version bound
        return None
    return str(_interrupt_id(checkpoint_ns, answered))


def step_checkpoint_id(configurable: Mapping[str, object]) -> str | None:
    """The checkpoint of the step running this task, from the `Runtime` LangGraph keeps in the config."""
    info = getattr(configurable.get(CONFIG_KEY_RUNTIME), "execution_info", None)
    checkpoint_id = getattr(info, "checkpoint_id", None)
    return str(checkpoint_id) if checkpoint_id else None
