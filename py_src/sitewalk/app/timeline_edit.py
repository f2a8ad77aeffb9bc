"""The timeline's site-walk steps and value edits in the page: a walk step's details; ask the walk's next
question again, change an answer, change what this device answered for a headless tool
(`session.travel.edits.StepEdits` does the work); a review decision changed at a step goes to
`app.decision_edit`.

Each shows the restore preview first, with the input the value needs (yes/no, a number, the tool's result
as JSON); nothing runs until the inspector confirms. A value that does not fit (`InvalidEdit`) brings the
preview back with what was typed and why, so nothing typed is lost.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..base.trusted import TemplateHtml
from ..timeline import InvalidEdit, RestorePreview, Step, UnknownCheckpoint
from ..ui.templating import render_template
from .decision_edit import DECISION_EDITS, start_decision

if TYPE_CHECKING:
    from ..session.travel import TimeTravel
    from ..session.travel.edits import StepEdits
    from .timeline_view import TimelineControls

__all__ = ["EDITS", "nested_details_html", "start_edit"]

EDITS = ("ask-again", "change-answer", "change-result", *DECISION_EDITS)


def nested_details_html(step: Step) -> TemplateHtml:
    """A site-walk step, read-only: the answers it held, the question it was about to ask, who and when."""
    interrupts = [f"{i.kind}: {i.question}" for i in step.facts.interrupts]
    return render_template("timeline_step.j2", step=step, messages=[], answers=list(step.facts.answers),
                           screen_html="", revision=None, next=list(step.facts.next), interrupts=interrupts)


async def start_edit(controls: TimelineControls, travel: TimeTravel, what: str, checkpoint: str,
                     button: object = None) -> None:
    from ..session.travel.edits import StepEdits

    if what in DECISION_EDITS:  # a review decision changed at a step (app/decision_edit.py)
        await start_decision(controls, travel, what, checkpoint, button)
        return
    edits = StepEdits(travel)
    if what == "ask-again":
        controls.show_preview(edits.preview(checkpoint), "Ask again from here?", "Ask again",
                              lambda _text: edits.ask_again(checkpoint))
    elif what == "change-answer":
        await _change_answer(controls, edits, checkpoint)
    else:
        await _change_result(controls, edits, travel, checkpoint)


async def _change_answer(controls: TimelineControls, edits: StepEdits, checkpoint: str) -> None:
    facts = edits.travel.timeline.tree.nested.facts(checkpoint)
    if facts is None or not facts.answers:
        raise UnknownCheckpoint(checkpoint, edits.thread_id)
    said = facts.answers[-1]
    _offer(controls, edits.preview(checkpoint), f"Change your answer: {said.question}", "Use this answer",
           lambda text: edits.change_answer(checkpoint, text), said.text, said.kind)


async def _change_result(controls: TimelineControls, edits: StepEdits, travel: TimeTravel, checkpoint: str) -> None:
    step = travel.timeline.tree.step(checkpoint)
    last = step.facts.last if step is not None else None
    if step is None or last is None or not step.facts.parent_id:
        raise UnknownCheckpoint(checkpoint, travel.thread.id)
    state = await travel.state_at(checkpoint)
    message: dict[str, Any] = next((m for m in state["values"].get("messages") or [] if m.get("id") == last.id), {})
    try:
        result = json.loads(str(message.get("content") or "{}")).get("result") or {}
    except (ValueError, AttributeError):
        result = {}
    _offer(controls, await travel.preview(step.facts.parent_id), f"Change what this device answered: {last.tool_name}",
           "Send as a new branch", lambda text: edits.change_result(checkpoint, text),
           json.dumps(result, indent=2, ensure_ascii=False), "json")


def _offer(controls: TimelineControls, preview: RestorePreview, heading: str, confirm: str,
           work: Callable[[str], Awaitable[Any]], value: str, kind: str, error: str = "") -> None:
    """The preview with the value's input; a value that does not fit comes back with the reason."""

    async def checked(text: str) -> None:
        try:
            await work(text)
        except InvalidEdit as refused:
            _offer(controls, preview, heading, confirm, work, text, kind, f"{refused.code}: {refused}")

    controls.show_preview(preview, heading, confirm, checked, value, edit_kind=kind, edit_error=error)
