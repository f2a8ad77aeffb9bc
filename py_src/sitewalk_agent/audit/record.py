"""One audit record per tool call, per review decision, per UI action and per site walk, appended to the thread's chain.

Every record has the same fields (None where a field does not apply), so the trail reads as a table:

    kind              tool_call | review_decision | ui_action | reconciliation (a call of unknown outcome, settled)
                      | site_walk (a walk_site call the walk answered)
    task_id           the inspection id the thread is about
    thread_id, run_id, checkpoint_id, interrupt_id, tool_call_id
    tool_name         the tool (or, for a UI action, the action asked for)
    args_revision     the revision of the arguments (1 = as the model wrote them; a reviewer's edit adds one)
    args_hash         sha256 of the arguments in canonical JSON
    review_status     approved | edited | rejected | review_not_required | refused (a UI action, or a review
                      answer the server refused) | ...
    reviewer          {identity, display_name, authenticated}
    time              ISO 8601 UTC
    outcome           succeeded | failed:<code> | rejected (a reviewed call the reviewer rejected: it did not run;
                      the reason in detail) | outcome_unknown | done | replayed | refused | decided (a review
                      decision taken) | <refusal code> (a review answer refused: stale_revision, invalid_edit, ...)
    detail            a short free text (a refusal's reason, a work order id)
    field             the field a refused review answer was refused for (`priority`, `photo_ids.0`), else None
    ui_spec_identity  the identity {message_id, tool_call_id, revision} of the screen the user saw
    idempotency_key   the key of a UI action
    answers           a site walk's questions and answers [{question_id, question, kind, answer}], in order

Without a store or a thread id (a graph run in-process without persistence) nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore
from langgraph.types import Command

from sitewalk_agent.audit.context import actor, interrupt_id_for, now, owner_of, run_context
from sitewalk_agent.audit.trail import AuditTrail
from sitewalk_shared.contracts.canonical import args_hash
from sitewalk_shared.contracts.envelope import OUTCOME_UNKNOWN, is_outcome_unknown
from sitewalk_shared.contracts.tool_result import REJECTED_BY_REVIEWER, tool_envelope

__all__ = ["FIELDS", "MAX_FIELD", "REFUSAL_ONCE", "append", "record_review_decision", "record_review_refusal",
           "record_tool_call", "record_ui_action", "record_reconciliation", "record_site_walk", "tool_outcome"]

FIELDS = ("kind", "task_id", "thread_id", "run_id", "checkpoint_id", "interrupt_id", "tool_call_id", "tool_name",
          "args_revision", "args_hash", "review_status", "reviewer", "time", "outcome", "detail",
          "ui_spec_identity", "idempotency_key", "answers", "field")
MAX_DETAIL = 300
MAX_FIELD = 200  # what a press may put in a record (a forged one may send megabytes)
IDENTITY_KEYS = ("message_id", "tool_call_id", "revision")
REFUSAL_ONCE = ("kind", "review_status", "interrupt_id", "outcome")
"""What makes two refusal records the same refusal: the interrupt answered and the reason code."""


Store = BaseStore | None
Config = RunnableConfig | None
State = Mapping[str, object] | None
Stored = dict[str, object] | None
"""What the record functions take and give: the run's store, config and graph state; the stored record."""


async def append(store: Store, config: Config, state: State, once: tuple[str, ...] = (), **fields: object
                 ) -> Stored:
    """Append one record (the context is read from `config`/`state`); the stored record, or None.
    `once`: the fields whose values name the event; when the trail has a record with the same values
    already, nothing is appended (None)."""
    context = run_context(config, state)
    if store is None or not context["thread_id"]:
        return None
    record: dict[str, object] = dict.fromkeys(FIELDS)
    record.update(context)
    record["time"] = now()
    ui_spec = (state or {}).get("ui_spec") or {}
    record["ui_spec_identity"] = ui_spec.get("identity") if isinstance(ui_spec, dict) else None
    record.update(fields)
    detail = record.get("detail")
    if isinstance(detail, str):
        record["detail"] = detail[:MAX_DETAIL]
    match = {name: record[name] for name in once} or None
    return await AuditTrail(store, str(context["thread_id"]), owner_of(config)).append(record, once=match)


def _tool_message(result: ToolMessage | Command) -> ToolMessage | None:
    """The result's ToolMessage: itself, or the last one a Command's update carries (None: it has none)."""
    if isinstance(result, ToolMessage):
        return result
    messages = result.update.get("messages") if isinstance(result.update, dict) else None
    return next((m for m in reversed(messages or []) if isinstance(m, ToolMessage)), None)


def tool_outcome(result: ToolMessage | Command) -> tuple[str, str | None]:
    """(outcome, detail) of a tool's result: a ToolMessage, or a Command whose update carries one."""
    message = _tool_message(result)
    if message is None:
        return "succeeded", None
    artifact = message.artifact
    answered_by = artifact.get("answered_by") if isinstance(artifact, dict) else None
    if message.status != "error":
        return "succeeded", _with_source(answered_by, message)
    if isinstance(artifact, dict) and artifact.get(REJECTED_BY_REVIEWER) is True:  # not run: a person said no
        return "rejected", artifact.get("reason") if isinstance(artifact.get("reason"), str) else None
    if is_outcome_unknown(message.content):  # the request went out, its answer never came
        return OUTCOME_UNKNOWN, answered_by
    error = (tool_envelope(message.content) or {}).get("error")  # after an edited call's notice
    code = error.get("code") if isinstance(error, dict) else None
    return f"failed:{code or 'error'}", answered_by


def _with_source(answered_by: str | None, message: ToolMessage) -> str | None:
    """A result that says where its data came from (a position the inspector typed: `source: manual`)
    keeps that in the record's detail, so the trail shows what left the device was typed."""
    result = (tool_envelope(message.content) or {}).get("result")
    source = result.get("source") if isinstance(result, dict) else None
    if not isinstance(source, str):
        return answered_by
    return f"{answered_by or 'server'}; source: {source[:40]}"


async def _decision_for(store: Store, config: Config, tool_call_id: object) -> Mapping[str, object] | None:
    """The review decision recorded for this call (a reviewed call runs the args its decision names)."""
    thread_id = run_context(config)["thread_id"]
    if store is None or not thread_id or not tool_call_id:
        return None
    found = await store.asearch(AuditTrail(store, str(thread_id), owner_of(config)).namespace,
                                filter={"kind": "review_decision", "tool_call_id": tool_call_id}, limit=10)
    return max((item.value for item in found), key=lambda v: v.get("seq", 0), default=None)


def _decided(decision: Mapping[str, object], args_revision: int, review_status: str) -> tuple[int, str, str]:
    """(args revision, args hash, review status) a reviewed call runs with, as its decision recorded them."""
    revision = decision.get("args_revision")
    return (revision if isinstance(revision, int) and revision else args_revision, str(decision.get("args_hash")),
            str(decision.get("review_status") or review_status))


async def record_tool_call(store: Store, config: Config, state: State, tool_call: Mapping[str, object],
                           result: ToolMessage | Command, review_status: str = "review_not_required",
                           args_revision: int = 1) -> Stored:
    """A finished tool call (headless or server tool), with its outcome. A reviewed call carries the
    revision and args hash of its decision: an edit runs revision 2, which the wrapper never sees."""
    outcome, detail = tool_outcome(result)
    hashed = args_hash(tool_call.get("args"))
    decision = await _decision_for(store, config, tool_call.get("id")) if review_status == "reviewed" else None
    if decision is not None:
        args_revision, hashed, review_status = _decided(decision, args_revision, review_status)
    return await append(store, config, state, kind="tool_call", tool_call_id=tool_call.get("id"),
                        tool_name=tool_call.get("name"), args_revision=args_revision,
                        args_hash=hashed, review_status=review_status,
                        reviewer=actor(config, state), interrupt_id=interrupt_id_for(config),
                        outcome=outcome, detail=detail)


async def record_review_decision(store: Store, config: Config, state: State, *, interrupt_id: str | None,
                                 tool_call_id: str | None, tool_name: str | None, args: object, args_revision: int,
                                 decision: str, outcome: str = "decided", reason: str | None = None,
                                 reviewer_name: str | None = None) -> Stored:
    """A reviewer's decision on one gated call: `decision` approved | edited | rejected, for the
    arguments `args` at `args_revision` (for an edit: the edited arguments and the new revision);
    `outcome` says whether it was taken (decided) or refused (stale_revision, already_decided...)."""
    return await append(store, config, state, kind="review_decision", interrupt_id=interrupt_id,
                        tool_call_id=tool_call_id, tool_name=tool_name, args_revision=args_revision,
                        args_hash=args_hash(args), review_status=decision,
                        reviewer=actor(config, state, reviewer_name), outcome=outcome, detail=reason)


async def record_review_refusal(store: Store, config: Config, state: State, *, interrupt_id: str | None,
                                tool_call_id: str | None, tool_name: str | None, args: object, args_revision: int,
                                code: str, field: str | None, message: str) -> Stored:
    """A review answer the server refused (`sitewalk_agent.review_check`): `review_status` "refused", the
    reason code as `outcome`, the field at fault as `field`, the reason as `detail`, for the args pending.

    Recorded once per (interrupt, code) (`REFUSAL_ONCE`): LangGraph re-runs the task from its start on
    every resume and replays the answers it had, so the same refused answer is found again on each later
    run of the call; it is one refusal, not one per run. None when it is in the trail already."""
    return await append(store, config, state, once=REFUSAL_ONCE, kind="review_decision", interrupt_id=interrupt_id,
                        tool_call_id=tool_call_id, tool_name=tool_name, args_revision=args_revision,
                        args_hash=args_hash(args), review_status="refused", reviewer=actor(config, state),
                        outcome=code, detail=message, field=field)


def _clip(value: object) -> str | None:
    """A press's field as stored: a string of at most MAX_FIELD characters, or None for anything else."""
    return value[:MAX_FIELD] if isinstance(value, str) else None


def _identity(value: object) -> dict[str, object] | None:
    """The screen identity a press names, reduced to its known keys, each clipped."""
    if not isinstance(value, dict):
        return None
    return {k: v if isinstance(v, int) and not isinstance(v, bool) else _clip(v)
            for k, v in value.items() if k in IDENTITY_KEYS}


async def record_ui_action(store: Store, config: Config, state: State, request: object,
                           answer: Mapping[str, object]) -> Stored:
    """A ConfirmButton press as the server answered it (`answer`: the ui_action_result, done/replayed/refused).

    A refused press (a forged one: another screen's identity, an element that is not a ConfirmButton,
    no key) is recorded like any other, `review_status` "refused" and the reason in `detail`; what it
    asked is clipped (`MAX_FIELD`) and its identity reduced to the known keys, and `args_hash` covers
    the clipped request."""
    press = request if isinstance(request, dict) else {}
    identity = _identity(press.get("identity"))
    asked = {"action": _clip(press.get("action")), "element_id": _clip(press.get("element_id")), "identity": identity}
    found = answer.get("result")
    result = found if isinstance(found, dict) else {}
    detail = answer.get("reason") or result.get("work_order")
    status = answer.get("status")
    return await append(store, config, state, kind="ui_action", tool_name=asked["action"],
                        args_hash=args_hash(asked), reviewer=actor(config, state, _clip(press.get("inspector"))),
                        review_status="refused" if status == "refused" else None,
                        interrupt_id=interrupt_id_for(config), outcome=status,
                        detail=str(detail) if detail else None, idempotency_key=_clip(press.get("idempotency_key")),
                        ui_spec_identity=identity)


async def record_reconciliation(store: Store, config: Config, state: State, tool_call_id: str,
                                entry: Mapping[str, object]) -> Stored:
    """A call of unknown outcome settled from the external system (`sitewalk_agent.outcomes`): which call,
    what it is now, and the work order found under its idempotency key. Done by the server, not a person."""
    return await append(store, config, state, kind="reconciliation", tool_call_id=tool_call_id,
                        tool_name=entry.get("tool"), outcome=entry.get("status"), detail=entry.get("work_order"),
                        idempotency_key=entry.get("idempotency_key"))


def walk_said(answers: Sequence[Mapping[str, object]]) -> str:
    """The answers as one line: "Is the handrail secure? yes; How many bolts are corroded? 3"."""
    def text(value: object) -> str:
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)
    return "; ".join(f"{a.get('question')} {text(a.get('answer'))}" for a in answers)


async def record_site_walk(store: Store, config: Config, state: State, tool_call: Mapping[str, object],
                           answers: Sequence[Mapping[str, object]], outcome: str = "answered") -> Stored:
    """A walk_site call the site walk answered (in a node: `AuditMiddleware` never sees it): the call, the
    questions and answers in the order asked, and who answered them (the run's auth identity)."""
    kept = [{k: a.get(k) for k in ("question_id", "question", "kind", "answer")} for a in answers]
    return await append(store, config, state, kind="site_walk", tool_call_id=tool_call.get("id"),
                        tool_name=tool_call.get("name"), args_revision=1, args_hash=args_hash(tool_call.get("args")),
                        review_status="review_not_required", reviewer=actor(config, state), outcome=outcome,
                        detail=walk_said(kept) or None, answers=kept)
