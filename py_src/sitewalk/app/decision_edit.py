"""The timeline's "Change your decision", in the page (`session.decision_edits.DecisionEdits` does the work).

On a step that carries review decisions: the step's reviewed calls with how each was decided; then one
call's form (the decisions its interrupt allows, the arguments for an edit, a reason for a rejection) and
the restore preview; "Show what this changes" adds what the new branch does with every call of the step
(the same work order back, a new one, none); "Send as a new branch" forks. A decision that does not fit
(`InvalidEdit`) brings the form back with what was typed and why; nothing is sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bridge import dom
from ..timeline import InvalidEdit
from ..ui.render import render_template

if TYPE_CHECKING:
    from ..session.decision_edits import DecisionEdits, DecisionPreview
    from .timeline_view import TimelineControls

__all__ = ["DECISION_EDITS", "start_decision"]

DECISION_EDITS = ("change-decision", "decision-call", "decision-preview", "decision-confirm")
RESTORE = "sw-restore"
_previewed: dict[str, Chosen] = {}  # checkpoint -> the decision whose effects are shown: only that one is sent


@dataclass(frozen=True)
class Chosen:
    call_id: str
    kind: str = ""
    args_text: str = ""
    reason: str = ""


async def start_decision(controls: TimelineControls, what: str, checkpoint: str, button: object) -> None:
    from ..session.decision_edits import DecisionEdits

    session = controls.session()
    if session is None or session.parts is None:
        return
    edits = DecisionEdits(session.parts)
    if what == "change-decision":
        _show(await edits.preview(checkpoint), checkpoint, None)
    elif what == "decision-call":
        preview = await edits.preview(checkpoint)
        call = preview.step.call(dom.attribute(button, "data-call-id") or "")
        other = "approve" if call.decided == "rejected" else "reject"  # the likeliest change, offered first
        kind = other if other in call.allowed else call.allowed[0]
        _show(preview, checkpoint, Chosen(call.tool_call_id, kind, json.dumps(call.ran_args, indent=2)))
    else:
        chosen = _read_form()
        if what == "decision-confirm" and _previewed.get(checkpoint) == chosen:
            await _send(edits, checkpoint, chosen)
        else:  # the form changed since its preview: show what this one does first
            await _check(edits, checkpoint, chosen)


async def _check(edits: DecisionEdits, checkpoint: str, chosen: Chosen) -> None:
    try:
        preview = await edits.preview(checkpoint, chosen.call_id, chosen.kind, chosen.args_text, chosen.reason)
    except InvalidEdit as refused:
        _show(await edits.preview(checkpoint), checkpoint, chosen, f"{refused.code}: {refused}")
        return
    _previewed[checkpoint] = chosen
    _show(preview, checkpoint, chosen)


async def _send(edits: DecisionEdits, checkpoint: str, chosen: Chosen) -> None:
    _previewed.pop(checkpoint, None)
    dom.set_html(RESTORE, "")
    try:
        await edits.change(checkpoint, chosen.call_id, chosen.kind, chosen.args_text, chosen.reason)
    except InvalidEdit as refused:
        _show(await edits.preview(checkpoint), checkpoint, chosen, f"{refused.code}: {refused}")


def _read_form() -> Chosen:
    form = dom.query(dom.element(RESTORE), ".sw-decision")
    return Chosen(dom.attribute(form, "data-call-id") or "", str(dom.element("sw-decision-kind").value),
                  str(dom.element("sw-edit-text").value), str(dom.element("sw-decision-reason").value))


def _show(preview: DecisionPreview, checkpoint: str, chosen: Chosen | None, error: str = "") -> None:
    call = preview.step.call(chosen.call_id) if chosen is not None else None
    dom.set_html(RESTORE, render_template("timeline_decision.j2", preview=preview, checkpoint=checkpoint, call=call,
                                          chosen=chosen, error=error))
