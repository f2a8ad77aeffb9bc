"""The timeline's "Change your decision", in the page (`session.travel.decisions.DecisionEdits` does the work).

On a step that carries review decisions: the step's reviewed calls with how each was decided; then one
call's form (the decisions its interrupt allows, the arguments for an edit as a form generated from the
tool's JSON Schema with the raw JSON as an advanced option, `sitewalk.review_form`; a reason for a
rejection) and the restore preview; "Show what this changes" adds what the new branch does with every call of the step
(the same work order back, a new one, none); "Send as a new branch" forks. A decision that does not fit
(`InvalidEdit`) brings the form back with what was typed and why, each wrong field named under it;
nothing is sent. The raw JSON is what an edit sends while "Edit as JSON" is open, the form otherwise.
Which decision's effects were shown last, per step, is the view's (`DecisionEditView.previewed`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitewalk_shared.contracts.field_actions import FIELD_ARGS

from ...bridge import dom
from ...review_form import FormField, form_fields, read_form, schema_of
from ...timeline import InvalidEdit
from ...ui.templating import render_template

if TYPE_CHECKING:
    from ...session.travel import TimeTravel
    from ...session.travel.decisions import DecisionEdits, DecisionPreview

__all__ = ["DECISION_EDITS", "DecisionEditView"]

DECISION_EDITS = ("change-decision", "decision-call", "decision-preview", "decision-confirm")
RESTORE = "sw-restore"


@dataclass(frozen=True)
class Chosen:
    call_id: str
    kind: str = ""
    args_text: str = ""  # the raw JSON
    reason: str = ""
    tool: str = ""
    typed: tuple[tuple[str, str | bool], ...] = ()  # what the generated form's inputs hold
    raw: bool = False  # "Edit as JSON" open: the raw JSON is what an edit sends

    def edited_text(self) -> str:
        """The edit's args as JSON text: the raw JSON, or the form read back (`InvalidEdit` if it cannot be)."""
        contract = FIELD_ARGS.get(self.tool)
        if self.raw or self.kind != "edit" or contract is None:
            return self.args_text
        return json.dumps(read_form(schema_of(contract), dict(self.typed)))


class DecisionEditView:
    """Draws its own form and preview in the restore panel; keeps which decision's effects it showed."""

    def __init__(self) -> None:
        self.previewed: dict[str, Chosen] = {}  # checkpoint -> the decision whose effects are shown: only it is sent

    async def start(self, travel: TimeTravel, what: str, checkpoint: str, button: object) -> None:
        """One of `DECISION_EDITS` pressed at `checkpoint`: the step's calls, a call's form, its effects, the fork."""
        from ...session.travel.decisions import DecisionEdits

        edits = DecisionEdits(travel)
        if what == "change-decision":
            _show(await edits.preview(checkpoint), checkpoint, None)
        elif what == "decision-call":
            preview = await edits.preview(checkpoint)
            call = preview.step.call(dom.attribute(button, "data-call-id") or "")
            other = "approve" if call.decided == "rejected" else "reject"  # the likeliest change, offered first
            kind = other if other in call.allowed else call.allowed[0]
            _show(preview, checkpoint, Chosen(call.tool_call_id, kind, json.dumps(call.ran_args, indent=2),
                                              tool=call.name))
        else:
            chosen = _read_form()
            if what == "decision-confirm" and self.previewed.get(checkpoint) == chosen:
                await self._send(edits, checkpoint, chosen)
            else:  # the form changed since its preview: show what this one does first
                await self._check(edits, checkpoint, chosen)

    async def _check(self, edits: DecisionEdits, checkpoint: str, chosen: Chosen) -> None:
        try:
            preview = await edits.preview(checkpoint, chosen.call_id, chosen.kind, chosen.edited_text(),
                                          chosen.reason)
        except InvalidEdit as refused:
            _show(await edits.preview(checkpoint), checkpoint, chosen, refused)
            return
        self.previewed[checkpoint] = chosen
        _show(preview, checkpoint, chosen)

    async def _send(self, edits: DecisionEdits, checkpoint: str, chosen: Chosen) -> None:
        self.previewed.pop(checkpoint, None)
        dom.set_html(RESTORE, "")
        try:
            await edits.change(checkpoint, chosen.call_id, chosen.kind, chosen.edited_text(), chosen.reason)
        except InvalidEdit as refused:
            _show(await edits.preview(checkpoint), checkpoint, chosen, refused)


def _read_form() -> Chosen:
    form = dom.query(dom.element(RESTORE), ".sw-decision")
    typed = tuple((str(n.name), bool(n.checked) if str(n.type) == "checkbox" else str(n.value))
                  for n in form.querySelectorAll(".sw-review-field [name]"))
    raw = dom.query(form, ".sw-decision-raw")
    return Chosen(dom.attribute(form, "data-call-id") or "", str(dom.element("sw-decision-kind").value),
                  str(dom.element("sw-edit-text").value), str(dom.element("sw-decision-reason").value),
                  dom.attribute(form, "data-tool") or "", typed, raw is not None and bool(raw.open))


def _show(preview: DecisionPreview, checkpoint: str, chosen: Chosen | None, refused: InvalidEdit | None = None
          ) -> None:
    call = preview.step.call(chosen.call_id) if chosen is not None else None
    fields = _fields(call.name, call.ran_args, chosen, refused) if call is not None and chosen is not None else []
    error = f"{refused.code}: {refused}" if refused is not None else ""
    dom.set_html(RESTORE, render_template("timeline_decision.j2", preview=preview, checkpoint=checkpoint, call=call,
                                          chosen=chosen, error=error, fields=fields))


def _fields(tool: str, ran_args: Mapping[str, object], chosen: Chosen, refused: InvalidEdit | None) -> list[FormField]:
    """The edit's form: the args that ran, or what was typed in it (kept), each wrong field named."""
    contract = FIELD_ARGS.get(tool)
    if contract is None:
        return []
    in_form = chosen.typed and not chosen.raw
    return form_fields(schema_of(contract), ran_args, refused.fields if refused and in_form else None,
                       dict(chosen.typed) if in_form else None)
