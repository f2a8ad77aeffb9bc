"""What the timeline keeps of one history entry: a few facts, never the entry's whole values.

A history entry carries the thread's whole state at that checkpoint (every message, the screen);
the timeline keeps only what names the step and places it in the tree, so the memory a shown step
costs does not grow with the conversation. Opening a step reads its full state again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sitewalk_shared.contracts.tool_result import EDIT_NOTICE_START, tool_envelope

__all__ = ["Answer", "Interruption", "LastMessage", "StepFacts", "checkpoint_id", "decision_of", "facts_of",
           "stable_namespace"]

TEXT_LIMIT = 80  # a step's title quotes at most this much of a message
EDITED_NOTE = EDIT_NOTICE_START  # how LangChain's review starts an edited result (contracts.tool_result)


@dataclass(frozen=True, slots=True)
class LastMessage:
    """The newest message of the state: what the step most likely added."""

    id: str
    type: str  # human | ai | tool
    text: str  # shortened
    tool_name: str = ""  # a tool message's tool
    tool_call_id: str = ""  # a tool message's call
    error_code: str = ""  # a tool message whose envelope failed (e.g. permission_denied)
    source: str = ""  # a tool result's `source`, when it says one (a typed position: manual)
    calls: tuple[tuple[str, str], ...] = ()  # an AI message's tool calls: (name, id)


@dataclass(frozen=True, slots=True)
class Interruption:
    """One interrupt the checkpoint waits on, reduced to what names it."""

    id: str
    kind: str  # tool | ui_action_request | tool_approval | question | other
    tool_name: str = ""
    tool_call_id: str = ""
    question: str = ""  # what a question asks the inspector ("Is the handrail secure?")


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer the inspector gave to a question of the agent's (the site walk)."""

    question_id: str
    question: str
    kind: str  # yes_no | number
    answer: Any

    @property
    def text(self) -> str:
        return ("yes" if self.answer else "no") if self.kind == "yes_no" and isinstance(self.answer, bool) \
            else str(self.answer)


@dataclass(frozen=True, slots=True)
class StepFacts:
    id: str
    parent_id: str | None
    step: int | None
    source: str  # input | loop | update | fork
    created_at: str
    next: tuple[str, ...]
    message_count: int
    last: LastMessage | None
    interrupts: tuple[Interruption, ...]
    spec_revision: int | None  # the screen on record's identity
    spec_call_id: str
    action_count: int  # ui_actions performed so far
    last_action: tuple[str, str, str] | None  # (action, idempotency key, reference) of the newest; a work
    # order's key is its business key (what the ticket system dedupes by), its reference its id (WO-…)
    run_id: str
    created_by: str  # who made it: the user id of the run, or "system"
    namespace: str = ""  # "" for the graph's own checkpoints, the subgraph's namespace for its own
    parent_step: str | None = None  # a subgraph checkpoint: the graph's checkpoint it ran from
    resumed_from: tuple[str, ...] = ()  # a graph checkpoint: the subgraph checkpoints its run started from
    answers: tuple[Answer, ...] = ()  # a subgraph's answers so far (the site walk's questions)
    checkpoint_map: tuple[tuple[str, str], ...] = ()  # a subgraph checkpoint: where each graph level stood
    subgraphs: tuple[str, ...] = ()  # namespaces of subgraphs with their own history among the next tasks
    results: tuple[tuple[str, str, str], ...] = ()  # the tool messages after the newest AI message:
    # (tool, call id, decision): approved | edited | rejected, as the reviewer's decision shows in the message

    @property
    def interrupted(self) -> bool:
        return bool(self.interrupts)


def checkpoint_id(config: object) -> str | None:
    """The id in a checkpoint object or a config ({checkpoint_id} or {configurable: {checkpoint_id}})."""
    if not isinstance(config, Mapping):
        return None
    found = config.get("checkpoint_id") or (config.get("configurable") or {}).get("checkpoint_id")
    return str(found) if found else None


def facts_of(entry: Mapping[str, Any]) -> StepFacts:
    """The facts of one history entry (raises KeyError when it has no checkpoint id)."""
    cid = checkpoint_id(entry.get("checkpoint"))
    if not cid:
        raise KeyError("history entry without a checkpoint id")
    metadata = _map(entry.get("metadata"))
    values = _map(entry.get("values"))
    messages = _list(values.get("messages"))
    spec = _map(values.get("ui_spec"))
    identity = _map(spec.get("identity"))
    actions = _list(values.get("ui_actions"))
    step = metadata.get("step")
    checkpoint = _map(entry.get("checkpoint"))
    namespace = str(checkpoint.get("checkpoint_ns") or "")
    parents = _map(metadata.get("parents"))
    return StepFacts(
        id=cid, parent_id=checkpoint_id(entry.get("parent_checkpoint")),
        step=step if isinstance(step, int) else None, source=str(metadata.get("source") or ""),
        created_at=str(entry.get("created_at") or ""), next=tuple(str(n) for n in entry.get("next") or ()),
        message_count=len(messages), last=_last_message(messages[-1]) if messages else None,
        interrupts=_interrupts(entry), spec_revision=_int(identity.get("revision")),
        spec_call_id=str(identity.get("tool_call_id") or ""), action_count=len(actions),
        last_action=_action(actions[-1]) if actions else None, run_id=str(metadata.get("run_id") or ""),
        created_by=str(metadata.get("user_id") or metadata.get("created_by") or ""),
        namespace=namespace, parent_step=(str(parents.get("") or "") or None) if namespace else None,
        # a graph checkpoint a run made from a subgraph's checkpoint names it in `parents` (by namespace)
        resumed_from=() if namespace else tuple(str(v) for k, v in parents.items() if k and v),
        answers=_answers(values.get("answers")),
        checkpoint_map=tuple((str(k), str(v)) for k, v in _map(checkpoint.get("checkpoint_map")).items())
        if namespace else (),
        subgraphs=_subgraphs(entry.get("tasks")),
        results=_results(messages),
    )


def stable_namespace(namespace: str) -> str:
    """A namespace without its task ids (`node:task|child:task` -> `node|child`): how a subgraph compiled
    with `checkpointer=True` keeps one history per thread, and how its history is read."""
    return "|".join(part.split(":")[0] for part in namespace.split("|")) if namespace else ""


def _subgraphs(tasks: object) -> tuple[str, ...]:
    """The namespaces of the next tasks that run a subgraph with checkpoints of its own. langgraph dev names
    it in the task's `checkpoint`; Aegra leaves that empty and passes the subgraph's config as `state`."""
    found = set()
    for task in map(_map, _list(tasks)):
        state = _map(task.get("state"))
        config = _map(task.get("checkpoint")) or _map(state.get("configurable")) or _map(state.get("checkpoint"))
        found.add(stable_namespace(str(config.get("checkpoint_ns") or "")))
    return tuple(sorted(ns for ns in found if ns))


def decision_of(message: Mapping[str, object]) -> str:
    """The review decision a tool message shows: LangChain marks a rejection (`lc_data.decision`) and prefixes
    the result of an edited call with a note; any other answer ran as the model asked (approved)."""
    marked = _map(_map(message.get("additional_kwargs")).get("lc_data")).get("decision")
    if marked == "reject":
        return "rejected"
    return "edited" if _text(message.get("content")).startswith(EDITED_NOTE) else "approved"


def _results(messages: list[object]) -> tuple[tuple[str, str, str], ...]:
    tail: list[tuple[str, str, str]] = []
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("type") != "tool":
            break
        tail.append((str(message.get("name") or ""), str(message.get("tool_call_id") or ""), decision_of(message)))
    return tuple(reversed(tail))


def _answers(value: object) -> tuple[Answer, ...]:
    return tuple(Answer(str(a.get("question_id") or ""), str(a.get("question") or ""), str(a.get("kind") or ""),
                        a.get("answer")) for a in _list(value) if isinstance(a, Mapping))


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return " ".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return ""


def _last_message(message: object) -> LastMessage | None:
    if not isinstance(message, Mapping):
        return None
    text = _text(message.get("content"))
    calls = tuple((str(c.get("name", "")), str(c.get("id", ""))) for c in message.get("tool_calls") or []
                  if isinstance(c, Mapping))
    kind = str(message.get("type") or "")
    return LastMessage(id=str(message.get("id") or ""), type=kind, text=_short(text),
                       tool_name=str(message.get("name") or "") if kind == "tool" else "",
                       tool_call_id=str(message.get("tool_call_id") or ""),
                       error_code=_error_code(text) if kind == "tool" else "",
                       source=_result_source(text) if kind == "tool" else "", calls=calls)


def _result_source(text: str) -> str:
    """A successful envelope's `result.source` ("manual": the inspector typed it), "" otherwise."""
    result = (tool_envelope(text) or {}).get("result")
    source = result.get("source") if isinstance(result, Mapping) else None
    return source if isinstance(source, str) else ""


def _error_code(text: str) -> str:
    """The code of a failed tool envelope ({"ok": false, "error": {"code": ...}}, after any edit notice), ""
    otherwise."""
    error = (tool_envelope(text) or {}).get("error")
    if isinstance(error, Mapping):
        return str(error.get("code") or "error")
    return "error" if isinstance(error, str) else ""


def _interrupts(entry: Mapping[str, Any]) -> tuple[Interruption, ...]:
    found: dict[str, Interruption] = {}
    raw = list(entry.get("interrupts") or [])
    for task in entry.get("tasks") or []:
        if isinstance(task, Mapping):
            raw.extend(task.get("interrupts") or [])
    for item in raw:
        if isinstance(item, Mapping) and str(item.get("id", "")) not in found:
            found[str(item.get("id", ""))] = _interruption(item)
    return tuple(found.values())


def _interruption(item: Mapping[str, object]) -> Interruption:
    value = _map(item.get("value"))
    kind = str(value.get("type") or "other")
    call = _map(value.get("tool_call") or value.get("toolCall"))
    if kind == "question":
        return Interruption(str(item.get("id", "")), kind, question=str(value.get("question") or ""))
    if kind == "tool_approval":
        return Interruption(str(item.get("id", "")), kind, str(value.get("name") or ""),
                            str(value.get("tool_call_id") or ""))
    if call:
        return Interruption(str(item.get("id", "")), kind, str(call.get("name") or ""), str(call.get("id") or ""))
    return Interruption(str(item.get("id", "")), kind)


def _action(record: object) -> tuple[str, str, str] | None:
    if not isinstance(record, Mapping):
        return None
    result = _map(record.get("result"))
    reference = str(result.get("work_order") or record.get("subject") or "")
    key = result.get("key") or record.get("idempotency_key")  # the business key, else the press's own
    return str(record.get("action") or ""), str(key or ""), reference
