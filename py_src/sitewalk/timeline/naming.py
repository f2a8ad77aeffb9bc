"""Name a step for people, from what it did: the facts of its checkpoint against its parent's.

The history has no "what happened" field in this server version (`metadata.writes` is absent), so a
step is named from the difference with its parent: a message added (whose?), a screen revision, an
action performed, and what the checkpoint now waits on. Node names are kept for the details view.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitewalk_shared.contracts.field_actions import ACTION_TITLES
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

from .facts import Interruption, LastMessage, StepFacts

__all__ = ["StepName", "name_step"]

# What a tool's work is called in a title ("Read your draft", "Waiting for your device: your draft").
_TOOL_OBJECT = {
    "read_local_draft": "your draft", "save_local_draft": "your draft", "start_blank_draft": "a blank draft",
    "get_current_location": "your location", "attach_photo": "a photo", "render_ui": "a screen",
    "create_work_order": "a work order",
}
_TOOL_DONE = {
    "read_local_draft": "Read your draft", "save_local_draft": "Saved your draft",
    "start_blank_draft": "Started a blank draft",
    "get_current_location": "Asked for your location", "attach_photo": "Asked for a photo",
    "walk_site": "Walked the site with you",
}
_TOOL_PLAN = {
    "read_local_draft": "ask for your draft", "start_blank_draft": "start a blank draft",
    "get_current_location": "ask for your location",
    "attach_photo": "ask for a photo", "render_ui": "show a screen", "create_work_order": "raise a work order",
    "walk_site": "walk the site with you",
}
_DECLINED = {"permission_denied", "declined", "cancelled"}


def _action_words(name: str) -> str:
    """A field action as its review card names it ("message the site manager"); another tool by its name."""
    title = ACTION_TITLES.get(name)
    return title[0].lower() + title[1:] if title else name


def _plan(name: str) -> str:
    """What the agent decided to do with this tool, in words ("raise a work order", "call lookup")."""
    if name in _TOOL_PLAN:
        return _TOOL_PLAN[name]
    return _action_words(name) if name in ACTION_TITLES else f"call {name}"


@dataclass(frozen=True, slots=True)
class StepName:
    title: str
    kind: str  # you | agent | device | screen | action | waiting | answer | decision | internal
    call_ids: tuple[str, ...] = ()  # tool call ids the step carries
    spec: str = ""  # the screen identity it carries ("rev 2 · call_…")
    editable: bool = False  # this device answered a headless tool here: the inspector may change the answer


def name_step(step: StepFacts, parent: StepFacts | None) -> StepName:
    """The step's title; `parent` is None when its parent is not loaded (yet) or it has none."""
    if step.namespace:
        return _nested(step, parent)
    grew = parent is None or step.message_count > parent.message_count
    last = step.last
    if step.source == "input":
        return StepName("Started a run", "internal")
    if step.source == "fork":  # the copy a replay starts from
        return StepName("Replayed from here", "internal")
    if last is not None and last.type == "human" and (grew or step.source == "update"):
        edited = " (edited)" if step.source == "update" else ""
        return StepName(f"You said: {last.text}{edited}", "you")
    if last is not None and last.type == "tool" and step.source == "update":  # an answer changed at a step
        changed = _message(last)
        return StepName(f"{changed.title} (changed)", "you", changed.call_ids)
    if step.interrupts:
        return _waiting(step.interrupts)
    if parent is not None and last is not None and last.type == "tool" and _reviewed(step, parent):
        return _decisions(step, parent)
    if parent is not None and step.action_count > parent.action_count and step.last_action:
        return _action(step)
    if parent is not None and step.spec_revision is not None and step.spec_revision != parent.spec_revision:
        return StepName(f"Showed the inspection screen (rev {step.spec_revision})", "screen",
                        (step.spec_call_id,), _spec(step))
    if last is not None and grew and parent is not None:
        return _message(last)
    if parent is None and last is not None and step.source == "update":
        return StepName("Changed a value", "you")
    return StepName("Checked the agent's work", "internal")


def _nested(step: StepFacts, parent: StepFacts | None) -> StepName:
    """A step of a subgraph's own history (the site walk): what was answered, or what it asks."""
    if step.source == "input":
        return StepName("Started the site walk", "internal")
    asking = next((i.question for i in step.interrupts if i.kind == "question"), "")
    if step.source == "fork":  # a replay from between the questions: the next one is asked again
        return StepName(f"Asked again: {asking}", "waiting") if asking else StepName("Replayed from here", "internal")
    grew = parent is None or len(step.answers) > len(parent.answers)
    if step.answers and (grew or step.source == "update"):
        said = step.answers[-1]
        changed = " (changed)" if step.source == "update" else ""
        return StepName(f"Asked: {said.question} — {said.text}{changed}", "answer")
    if asking:
        return StepName(f"Waiting for your answer: {asking}", "waiting")
    return StepName("Checked the walk", "internal")


def _reviewed(step: StepFacts, parent: StepFacts) -> bool:
    """The step answered calls its parent waited on for review: it carries the reviewer's decisions."""
    waited = {i.tool_call_id for i in parent.interrupts if i.kind == "tool_approval"}
    return any(call_id in waited for _, call_id, _ in step.results)


def _decisions(step: StepFacts, parent: StepFacts) -> StepName:
    waited = {i.tool_call_id for i in parent.interrupts if i.kind == "tool_approval"}
    decided = [(name, call_id, decision) for name, call_id, decision in step.results if call_id in waited]
    said = ", ".join(f"{name.replace('_', ' ')} {decision}" for name, _, decision in decided)
    return StepName(f"Your decisions: {said}", "decision", tuple(call_id for _, call_id, _ in decided))


def _spec(step: StepFacts) -> str:
    return f"rev {step.spec_revision} · {step.spec_call_id}" if step.spec_revision is not None else ""


def _waiting(interrupts: tuple[Interruption, ...]) -> StepName:
    ids = tuple(i.tool_call_id for i in interrupts if i.tool_call_id)
    kinds = {i.kind for i in interrupts}
    if "ui_action_request" in kinds:
        return StepName("Waiting for your decision", "waiting", ids)
    if "question" in kinds:
        asked = next(i.question for i in interrupts if i.kind == "question")
        return StepName(f"Waiting for your answer: {asked}", "waiting", ids)
    if "tool_approval" in kinds:
        names = ", ".join(_action_words(i.tool_name) for i in interrupts if i.kind == "tool_approval")
        return StepName(f"Waiting for your approval: {names}", "waiting", ids)
    objects = ", ".join(_TOOL_OBJECT.get(i.tool_name, i.tool_name) for i in interrupts if i.tool_name)
    return StepName(f"Waiting for your device: {objects}" if objects else "Waiting for you", "waiting", ids)


def _action(step: StepFacts) -> StepName:
    assert step.last_action is not None
    action, key, reference = step.last_action
    if action == "create_work_order":
        return StepName(f"Work order {reference} created", "action", (key,))
    return StepName(f"Done: {action.replace('_', ' ')} ({reference})", "action", (key,))


def _message(last: LastMessage) -> StepName:
    if last.type == "tool":
        done = _TOOL_DONE.get(last.tool_name, f"Ran {last.tool_name}")
        editable = last.tool_name in TOOL_CONTRACTS  # the browser's answer (a headless tool)
        if last.error_code in _DECLINED:
            return StepName(f"{done}: declined", "device", (last.tool_call_id,), editable=editable)
        if last.error_code:
            return StepName(f"{done}: failed ({last.error_code})", "device", (last.tool_call_id,), editable=editable)
        if last.source == "manual":  # the device gave none: the inspector typed it
            return StepName(f"{done}: typed by you", "device", (last.tool_call_id,), editable=editable)
        return StepName(done, "device", (last.tool_call_id,), editable=editable)
    if last.calls:
        plans = " and ".join(_plan(name) for name, _ in last.calls)
        return StepName(f"Decided to {plans}", "agent", tuple(cid for _, cid in last.calls))
    return StepName(f"Agent said: {last.text}" if last.text else "Agent answered", "agent")
