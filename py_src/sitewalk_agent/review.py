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
  With tracing on (`sitewalk_agent.tracing`) it also carries `"traceparent"`: a `sitewalk.review` span
  made as the review asks, under which the browser's spans of the decision nest, and `"checkpoint_id"`:
  the checkpoint the interrupted step started from (the browser's decision spans carry it).
- A decision names the revision it was made on:
  `{"type": "approve" | "edit" | "reject", "args_revision": 1, "args_hash": "<hash from the card>",
    "edited_action"?: {"name", "args"}, "message"?: "reason"}`.

Where the checks live:

1. The server (authoritative, `sitewalk_agent.review_check`): every answer is checked against the
   args pending on the server for THAT interrupt (`stale_revision`: another revision or hash, or
   none), the decisions the tool allows (`invalid_decision`) and, for an edit, the tool's own
   argument contract (`invalid_edit`, with the field and pydantic's reason). A refused answer never
   fails the run: the review asks again, in the same task, with the refusal attached to the
   interrupt value (`"refusal": {"code", "field", "message", "issues"}`), so the call stays pending
   review and the thread stays `interrupted` (on Aegra a thread in `error` can never be resumed).
   The re-asked interrupt has a new id (LangGraph numbers a task's interrupts by the answers it has);
   the card is drawn again from the thread's state. Nothing runs for the refused call.
2. The client (`sitewalk.session.reviews`): before sending, it reads the thread's state and drops,
   with a typed error, every decision whose interrupt is no longer pending (already decided) or
   whose hash does not match the pending args (stale). A resume key that names no pending
   interrupt is ignored by LangGraph (nothing runs), so the already-decided check can only be a
   client check; the unit tests prove that such a resume runs nothing twice.

One resume with several decisions, one of them refused: **the others still apply.** Each gated call
is its own interrupt, answered by its own id and run in its own task (`per_call`); the reviewer
decided each on its own card and could as well have sent them one at a time. Holding the good ones
back would make the reviewer decide them again for no safety gain, and "none applies" cannot be
kept anyway: LangGraph runs the tool tasks of a step side by side with no transaction across them
(a work order filed by one task is not undone when another's decision is refused). The refused call
alone stays pending, with its refusal on its card.

`ReviewMiddleware.decide` is the one place a checked decision turns into what runs (the request,
possibly edited) or what the model is told instead (a rejection `ToolMessage`); an audit trail hooks
in there. Each refused answer is audited too (`record_review_refusal`: the code, the field, the
reason), once per (interrupt, code): every later run of the task replays the answer and finds the
same refusal again, and that is not a second refusal. The order rule (archive before delete) is not
a review matter: `delete_photos` enforces it (`sitewalk_agent.field_actions`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import InterruptOnConfig
from langchain.agents.middleware.human_in_the_loop import Action
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt

from sitewalk_agent import tracing
from sitewalk_agent.audit.context import interrupt_id_for
from sitewalk_agent.audit.record import record_review_decision, record_review_refusal
from sitewalk_agent.field_actions import FIELD_TOOLS
from sitewalk_agent.review_check import (
    INVALID_DECISION,
    INVALID_EDIT,
    PENDING_REVISION,
    STALE_REVISION,
    Refusal,
    check_decision,
    decision_schema,
)
from sitewalk_agent.upstream import PerCallReview, answer_message
from sitewalk_shared.contracts.canonical import args_hash
from sitewalk_shared.contracts.tool_result import REJECTED_BY_REVIEWER

__all__ = ["INVALID_DECISION", "INVALID_EDIT", "REVIEWED_TOOLS", "STALE_REVISION", "ReviewMiddleware",
           "review_policy"]

REVIEWED_TOOLS = tuple(t.name for t in FIELD_TOOLS)

_DESCRIPTIONS = {
    "create_work_order": "Raise a repair work order (a real order in the work-order system).",
    "notify_site_manager": "Send a message to the site manager.",
    "archive_photos": "Copy these photos to the archive.",
    "delete_photos": "Delete these photos (refused unless they were archived first).",
}


def review_policy() -> dict[str, bool | InterruptOnConfig]:
    """`interrupt_on` for every field action: approve, edit or reject, each with its description."""
    return {name: InterruptOnConfig(allowed_decisions=["approve", "edit", "reject"], description=text)
            for name, text in _DESCRIPTIONS.items()}


class ReviewMiddleware(PerCallReview):
    """Per-call review of the field actions; every decision must name the args revision it saw."""

    def __init__(self, interrupt_on: dict[str, bool | InterruptOnConfig] | None = None) -> None:
        super().__init__(interrupt_on or review_policy(), interrupt_mode="per_call")
        self._decided: dict[str, dict[str, Any]] = {}  # tool_call_id -> decision, until it is audited
        self._refused: dict[str, list[tuple[int, Refusal]]] = {}  # tool_call_id -> (answer number, refusal)

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]
                              ) -> ToolMessage | Command[Any]:
        try:
            return await super().awrap_tool_call(request, handler)
        finally:  # refusals, then the decision, go on the audit chain (sitewalk_agent.audit), whatever came next
            call_id = str(request.tool_call["id"])
            for answered, refusal in self._refused.pop(call_id, []):
                await _audit_refusal(request, answered, refusal)
            decision = self._decided.pop(call_id, None)
            if decision is not None:
                await _audit_decision(request, decision)

    def resolve_call(self, request: ToolCallRequest) -> tuple[ToolCallRequest, Action | None] | ToolMessage:
        config = self.interrupt_on.get(request.tool_call["name"])
        when = config.get("when") if config else None
        if config is None or (when is not None and not when(request)):
            return request, None
        name, allowed = request.tool_call["name"], [str(d) for d in config["allowed_decisions"]]
        pending = args_hash(request.tool_call["args"])
        value = {**self.approval_request(request, config), "args_revision": PENDING_REVISION,
                 "args_hash": pending, **_trace_context(request)}
        schema = decision_schema(name, allowed, request.tool)  # published to clients, checked below
        refusals = 0
        self._refused[str(request.tool_call["id"])] = refused = []
        while True:  # a refused answer asks again (a new interrupt of this task), it never fails the run
            answer = interrupt(value, response_schema=schema)
            checked = check_decision(answer, name=name, allowed=allowed, tool=request.tool, pending_hash=pending)
            if not isinstance(checked, Refusal):
                return self.decide(request, checked, answered=refusals)
            refused.append((refusals, checked))
            refusals += 1
            value = {**value, "refusal": {**checked.as_dict(), "decision": _kind(answer)}}

    def decide(self, request: ToolCallRequest, decision: Any, answered: int = 0
               ) -> tuple[ToolCallRequest, Action | None] | ToolMessage:
        """A checked decision -> the request to run (edited: revision 2) or the model's rejection message.
        `answered`: the refused answers before it (the decided interrupt's number in its task)."""
        self._decided[str(request.tool_call["id"])] = {**decision, "_answered": answered}
        if decision["type"] == "approve":
            return request, None
        if decision["type"] == "edit":
            executed: Action = decision["edited_action"]
            return self.apply_edit(request, executed), executed
        return _rejected(answer_message(request.tool_call, decision), decision)


def _rejected(message: ToolMessage, decision: dict[str, Any]) -> ToolMessage:
    """LangChain's rejection message, also saying in its artifact (kept in the state, never sent to the model)
    that the reviewer rejected the call and why, so a device can say so instead of "failed"."""
    reason = decision.get("message")
    message.artifact = {REJECTED_BY_REVIEWER: True, "reason": reason if isinstance(reason, str) else None}
    return message


def _trace_context(request: ToolCallRequest) -> dict[str, str]:
    """`{"traceparent": ..., "checkpoint_id": ...}` of the review's span and step when the server traces, else
    nothing (and no import)."""
    if not tracing.enabled():
        return {}
    from sitewalk_agent.tracing.interrupts import review_traceparent, step_checkpoint  # noqa: PLC0415

    config = getattr(request.runtime, "config", None)
    traceparent = review_traceparent(request.tool_call, PENDING_REVISION, config)
    if not traceparent:
        return {}
    checkpoint_id = step_checkpoint(config)
    return {"traceparent": traceparent, **({"checkpoint_id": checkpoint_id} if checkpoint_id else {})}


def _kind(answer: object) -> str | None:
    kind = answer.get("type") if isinstance(answer, dict) else None
    return kind if isinstance(kind, str) else None


async def _audit_refusal(request: ToolCallRequest, answered: int, refusal: Refusal) -> None:
    """The refused answer to the task's interrupt number `answered`, for the args pending (revision 1)."""
    runtime = request.runtime
    config = getattr(runtime, "config", None)
    await record_review_refusal(getattr(runtime, "store", None), config, request.state,
                                interrupt_id=interrupt_id_for(config, answered), tool_call_id=request.tool_call["id"],
                                tool_name=request.tool_call["name"], args=request.tool_call["args"],
                                args_revision=PENDING_REVISION, code=refusal.code, field=refusal.field,
                                message=refusal.message)


async def _audit_decision(request: ToolCallRequest, decision: dict[str, Any]) -> None:
    edited = decision["type"] == "edit"
    args = decision["edited_action"]["args"] if edited else request.tool_call["args"]
    status = {"approve": "approved", "edit": "edited", "reject": "rejected"}.get(decision["type"], decision["type"])
    runtime = request.runtime
    config = getattr(runtime, "config", None)
    await record_review_decision(getattr(runtime, "store", None), config, request.state,
                                 interrupt_id=interrupt_id_for(config, decision["_answered"]),
                                 tool_call_id=request.tool_call["id"],
                                 tool_name=request.tool_call["name"], args=args,
                                 args_revision=PENDING_REVISION + 1 if edited else PENDING_REVISION,
                                 decision=status, reason=decision.get("message"))
