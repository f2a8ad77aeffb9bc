"""A step that carries the reviewer's decisions, a decision changed at it, and what the change does (pure).

A step carries decisions when it answered the tool calls its parent waited on for review (the parent's
`tool_approval` interrupts; the step's tool messages say approved, edited or rejected: `facts.decision_of`).
The fork is made at that parent, the *review step* (`session.travel.decisions` says how and why).

- `reviewed_step` reads, from the review step's state, each reviewed call: its interrupt, args, the
  decisions the interrupt allows (its `response_schema`), and, from the step's own state, how it was
  decided and the work order it filed.
- `decide` turns the inspector's choice into a decision, or refuses it (`InvalidEdit`): a type the
  interrupt does not allow, edited arguments that are not a JSON object or do not fit the tool's contract
  (`sitewalk_shared.contracts.field_actions`, the models the server's tools are built from).
- `effects` says, for every reviewed call of the step, what the new branch does with it: the changed call
  reaches the order already filed (same business key: the original comes back), files a new one (another
  key), or files nothing (rejected; the order filed on the old branch is not undone); the others are asked
  again (nothing runs until the inspector decides).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sitewalk_shared.contracts.field_actions import FIELD_ARGS, reviewed_order_key, reviewed_substance
from sitewalk_shared.contracts.tool_result import read_tool_result, tool_envelope

from ..typed_value import typed_object
from .errors import InvalidEdit
from .facts import decision_of

__all__ = ["DecisionEffect", "ReviewedCall", "ReviewedStep", "decide", "effects", "order_key", "reviewed_step"]

WORK_ORDER = "create_work_order"
UNREADABLE = "unreadable"  # a lookup that could not read the ticket system's records


@dataclass(frozen=True, slots=True)
class ReviewedCall:
    interrupt_id: str  # at the review step (a fork asks again under a new id)
    tool_call_id: str
    name: str
    args: dict[str, Any]
    allowed: tuple[str, ...]  # the decision types its interrupt accepts
    decided: str  # approved | edited | rejected | pending (no answer at the step)
    ran_args: dict[str, Any]  # the args that ran (the edited ones for an edit)
    order_id: str = ""  # the work order it filed or found (WO-…)
    order_key: str = ""  # that order's business key

    @property
    def subject(self) -> str:
        return str(self.args.get("subject") or self.args.get("message") or "")


@dataclass(frozen=True, slots=True)
class ReviewedStep:
    step_id: str  # the step that carries the decisions
    review_id: str  # the step that waited on them: the fork is made there
    calls: tuple[ReviewedCall, ...]

    def call(self, tool_call_id: str) -> ReviewedCall:
        found = next((c for c in self.calls if c.tool_call_id == tool_call_id), None)
        if found is None:
            raise InvalidEdit(f"no reviewed call {tool_call_id!r} at this step")
        return found


@dataclass(frozen=True, slots=True)
class DecisionEffect:
    """What the new branch does with one reviewed call, in the inspector's words."""

    tool_call_id: str
    label: str
    outcome: str
    kind: str  # deduplicated | new | not_filed | nothing | asked_again | unchecked
    order_id: str = ""
    key: str = ""

    @property
    def deduplicated(self) -> bool:
        return self.kind == "deduplicated"


def reviewed_step(step_id: str, review_state: Mapping[str, Any], step_state: Mapping[str, Any]) -> ReviewedStep:
    """The reviewed calls of a step, from the states of its review step and of the step itself."""
    answers = {str(m.get("tool_call_id")): m for m in (step_state.get("values") or {}).get("messages") or []
               if isinstance(m, Mapping) and m.get("type") == "tool"}
    calls = [_call(i, answers.get(str((i.get("value") or {}).get("tool_call_id")))) for i in _interrupts(review_state)]
    review_id = str((review_state.get("checkpoint") or {}).get("checkpoint_id") or "")
    return ReviewedStep(step_id, review_id, tuple(calls))


def decide(call: ReviewedCall, kind: str, args_text: str = "", reason: str = "") -> dict[str, Any]:
    """The decision the inspector chose (without the revision: the fork's pending review names it)."""
    if kind not in call.allowed:
        raise InvalidEdit(f"{kind!r} is not a decision {call.name} allows here (allowed: {', '.join(call.allowed)})")
    if kind == "approve":
        return {"type": "approve"}
    if kind == "reject":
        return {"type": "reject", "message": reason.strip() or "rejected by the reviewer"}
    return {"type": "edit", "edited_action": {"name": call.name, "args": _checked_args(call.name, args_text)}}


def order_key(call: ReviewedCall, decision: Mapping[str, Any]) -> str:
    """The business key the decision files a work order under ("" when it files none)."""
    if call.name != WORK_ORDER or decision.get("type") == "reject":
        return ""
    args = (decision.get("edited_action") or {}).get("args") if decision.get("type") == "edit" else call.args
    args = args or {}
    return reviewed_order_key(reviewed_substance(str(args.get("inspection_id") or ""), str(args.get("subject") or "")))


def effects(step: ReviewedStep, tool_call_id: str, decision: Mapping[str, object],
            records: Mapping[str, Mapping[str, Any] | str | None]) -> list[DecisionEffect]:
    """Every reviewed call's fate on the new branch; `records`: business key -> the ticket system's record,
    None when it has none, or UNREADABLE."""
    out = []
    for call in step.calls:
        if call.tool_call_id == tool_call_id:
            out.append(_changed(call, decision, records))
        else:
            filed = f" ({call.order_id} already created: approving it again returns it)" if call.order_id else ""
            out.append(DecisionEffect(call.tool_call_id, _label(call), f"asked again on the new branch: nothing "
                                      f"runs until you decide{filed}", "asked_again", call.order_id, call.order_key))
    return out


def _changed(call: ReviewedCall, decision: Mapping[str, object], records: Mapping[str, object]) -> DecisionEffect:
    label, cid = _label(call), call.tool_call_id
    key = order_key(call, decision)
    if decision.get("type") == "reject":
        if call.order_id:
            return DecisionEffect(cid, label, f"rejected: no order is filed on the new branch; {call.order_id} was "
                                  "created on the old one and stays open (close it to undo it)", "not_filed",
                                  call.order_id, call.order_key)
        return DecisionEffect(cid, label, "rejected: nothing is done on the new branch", "nothing")
    if not key:
        return DecisionEffect(cid, label, f"{decision.get('type')}d: runs on the new branch", "nothing")
    record = records.get(key)
    if record == UNREADABLE:
        return DecisionEffect(cid, label, f"files under {key}: an order already filed under it would come back, "
                              "never a second (the records could not be read)", "unchecked", key=key)
    if isinstance(record, Mapping):
        found = str(record.get("id") or "")
        return DecisionEffect(cid, label, f"already created: {found} — the new branch gets it back (same key, no "
                              "second order)", "deduplicated", found, key)
    return DecisionEffect(cid, label, f"new: files a new work order under {key}", "new", key=key)


def _label(call: ReviewedCall) -> str:
    return f"{call.name.replace('_', ' ')}: {call.subject}" if call.subject else call.name.replace("_", " ")


def _interrupts(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The review interrupts of a state, once each (a state lists them on its tasks and at the top)."""
    found: dict[str, Mapping[str, Any]] = {}
    raw = [*(state.get("interrupts") or []),
           *(i for t in state.get("tasks") or [] if isinstance(t, Mapping) for i in t.get("interrupts") or [])]
    for item in raw:
        if isinstance(item, Mapping) and (item.get("value") or {}).get("type") == "tool_approval":
            found.setdefault(str(item.get("id")), item)
    return list(found.values())


def _call(interrupt: Mapping[str, Any], answer: Mapping[str, Any] | None) -> ReviewedCall:
    value = interrupt.get("value") or {}
    args = dict(value.get("args") or {})
    decided = decision_of(answer) if answer is not None else "pending"
    result = _result(answer)
    ran = _executed(answer) if decided == "edited" else None
    return ReviewedCall(str(interrupt.get("id")), str(value.get("tool_call_id")), str(value.get("name")), args,
                        _allowed(interrupt), decided, ran if ran is not None else args,
                        str(result.get("work_order") or ""), str(result.get("key") or ""))


def _executed(answer: Mapping[str, object] | None) -> dict[str, Any] | None:
    """The args an edited call ran with, as LangChain's note names them ("Executed instead: NAME with arguments
    {...}.")."""
    executed = read_tool_result((answer or {}).get("content")).executed
    return dict(executed["args"]) if executed else None


def _allowed(interrupt: Mapping[str, object]) -> tuple[str, ...]:
    """The decision types the interrupt's response schema accepts (LangChain's discriminated union)."""
    schema = interrupt.get("response_schema") or {}
    mapping = (schema.get("discriminator") or {}).get("mapping") if isinstance(schema, Mapping) else None
    return tuple(mapping) if isinstance(mapping, Mapping) and mapping else ("approve", "edit", "reject")


def _result(answer: Mapping[str, object] | None) -> dict[str, Any]:
    """The result of a tool's envelope in its message (an edited call's comes after LangChain's note)."""
    envelope = tool_envelope((answer or {}).get("content")) or {}
    result = envelope.get("result")
    return dict(result) if isinstance(result, dict) else {}


def _checked_args(tool: str, text: str) -> dict[str, Any]:
    return typed_object(text, "the arguments", tool, FIELD_ARGS.get(tool))
