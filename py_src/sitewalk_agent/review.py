"""Per-call human review of the field actions, with argument revisions.

LangChain's `HumanInTheLoopMiddleware(interrupt_mode="per_call")` does the pausing: each gated tool
call, as it starts, raises its own interrupt and waits for one decision keyed by that interrupt's
id. Two calls of the same tool in one AI message are two interrupts with their own `tool_call_id`
and args. An unanswered interrupt simply stays pending (the run ends; the thread is `interrupted`):
nothing is ever approved by default.

`ReviewMiddleware` adds argument revisions on top:

- The interrupt value is LangChain's `ToolApprovalRequest` plus two fields:
  `{"type": "tool_approval", "tool_call_id", "name", "args", "description",
    "args_revision": 1, "args_hash": "<sha256 of the canonical JSON of args>"}`.
  Revision 1 is the model's args. An `edit` decision creates revision 2: the edited args are what
  runs (LangChain substitutes them and tells the model so).
- A decision names the revision it was made on:
  `{"type": "approve" | "edit" | "reject", "args_revision": 1, "args_hash": "<hash from the card>",
    "edited_action"?: {"name", "args"}, "message"?: "reason"}`.

Where the checks live:

1. The server (authoritative): the decision schema that `interrupt()` checks the resume value
   against carries a validator comparing the decision's `args_revision`/`args_hash` with the args
   pending on the server for THAT interrupt. A mismatch (or a decision naming no revision) is a
   `pydantic.ValidationError` whose text starts with `stale_revision:`; LangGraph refuses such a
   resume before saving it, the run fails with that error, nothing runs, and the interrupt stays
   pending so it can be answered again.
2. The client (`sitewalk.session.reviews`): before sending, it reads the thread's state and drops,
   with a typed error, every decision whose interrupt is no longer pending (already decided) or
   whose hash does not match the pending args (stale). A resume key that names no pending
   interrupt is ignored by LangGraph (nothing runs), so the already-decided check can only be a
   client check; the unit tests prove that such a resume runs nothing twice.

`ReviewMiddleware.decide` is the one place a checked decision turns into what runs (the request,
possibly edited) or what the model is told instead (a rejection `ToolMessage`); an audit trail hooks
in there. The order rule (archive before delete) is not a review matter: `delete_photos` enforces it
(`sitewalk_agent.field_actions`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, cast

from langchain.agents.middleware import HumanInTheLoopMiddleware, InterruptOnConfig
from langchain.agents.middleware.human_in_the_loop import Action, _answer_message, _decision_schema
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt
from pydantic import ValidatorFunctionWrapHandler, WrapValidator

from sitewalk_agent.audit.context import interrupt_id_for
from sitewalk_agent.audit.record import record_review_decision
from sitewalk_agent.field_actions import FIELD_TOOLS

__all__ = ["REVIEWED_TOOLS", "STALE_REVISION", "ReviewMiddleware", "args_hash", "review_policy"]

STALE_REVISION = "stale_revision"
PENDING_REVISION = 1  # per_call: the pending args are always the model's own (an edit runs at once)
REVIEWED_TOOLS = tuple(t.name for t in FIELD_TOOLS)

_DESCRIPTIONS = {
    "create_work_order": "Raise a repair work order (a real order in the work-order system).",
    "notify_site_manager": "Send a message to the site manager.",
    "archive_photos": "Copy these photos to the archive.",
    "delete_photos": "Delete these photos (refused unless they were archived first).",
}


def args_hash(args: Any) -> str:
    """The hash a decision names: sha256 of the canonical JSON (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def review_policy() -> dict[str, bool | InterruptOnConfig]:
    """`interrupt_on` for every field action: approve, edit or reject, each with its description."""
    return {name: InterruptOnConfig(allowed_decisions=["approve", "edit", "reject"], description=text)
            for name, text in _DESCRIPTIONS.items()}


def _revision_check(expected: str) -> Callable[[Any, ValidatorFunctionWrapHandler], Any]:
    def check(answer: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        named = answer if isinstance(answer, dict) else {}
        if named.get("args_revision") != PENDING_REVISION or named.get("args_hash") != expected:
            raise ValueError(f"{STALE_REVISION}: the decision names revision {named.get('args_revision')!r} "
                             f"hash {str(named.get('args_hash'))[:12]!r}; pending is revision {PENDING_REVISION} "
                             f"hash {expected[:12]!r}. Reload the review and decide again.")
        return handler(answer)
    return check


class ReviewMiddleware(HumanInTheLoopMiddleware):
    """Per-call review of the field actions; every decision must name the args revision it saw."""

    def __init__(self, interrupt_on: dict[str, bool | InterruptOnConfig] | None = None) -> None:
        super().__init__(interrupt_on or review_policy(), interrupt_mode="per_call")
        self._decided: dict[str, dict[str, Any]] = {}  # tool_call_id -> decision, until it is audited

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]
                              ) -> ToolMessage | Command[Any]:
        try:
            return await super().awrap_tool_call(request, handler)
        finally:  # the decision goes on the audit chain (sitewalk_agent.audit), whatever the call did next
            decision = self._decided.pop(str(request.tool_call["id"]), None)
            if decision is not None:
                await _audit_decision(request, decision)

    def _resolve_per_call(self, request: ToolCallRequest) -> tuple[ToolCallRequest, Action | None] | ToolMessage:
        config = self.interrupt_on.get(request.tool_call["name"])
        when = config.get("when") if config else None
        if config is None or (when is not None and not when(request)):
            return request, None
        pending = args_hash(request.tool_call["args"])
        value = {**self._tool_approval_request(request, config), "args_revision": PENDING_REVISION,
                 "args_hash": pending}
        schema = _decision_schema(config["allowed_decisions"], request.tool_call["name"], request.tool)
        # A type built at runtime (as LangChain's own schema is): interrupt() checks every answer against it.
        checked = cast("type[Any]", Annotated[schema, WrapValidator(_revision_check(pending))])
        decision = interrupt(value, response_schema=checked)  # refused before it is saved when stale
        return self.decide(request, decision)

    def decide(self, request: ToolCallRequest, decision: Any) -> tuple[ToolCallRequest, Action | None] | ToolMessage:
        """A checked decision -> the request to run (edited: revision 2) or the model's rejection message."""
        self._decided[str(request.tool_call["id"])] = dict(decision)
        if decision["type"] == "approve":
            return request, None
        if decision["type"] == "edit":
            executed: Action = decision["edited_action"]
            return self._apply_edit(request, executed), executed
        return _answer_message(request.tool_call, decision)


async def _audit_decision(request: ToolCallRequest, decision: dict[str, Any]) -> None:
    edited = decision["type"] == "edit"
    args = decision["edited_action"]["args"] if edited else request.tool_call["args"]
    status = {"approve": "approved", "edit": "edited", "reject": "rejected"}.get(decision["type"], decision["type"])
    runtime = request.runtime
    config = getattr(runtime, "config", None)
    await record_review_decision(getattr(runtime, "store", None), config, request.state,
                                 interrupt_id=interrupt_id_for(config), tool_call_id=request.tool_call["id"],
                                 tool_name=request.tool_call["name"], args=args,
                                 args_revision=PENDING_REVISION + 1 if edited else PENDING_REVISION,
                                 decision=status, reason=decision.get("message"))
