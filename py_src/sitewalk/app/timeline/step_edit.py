"""The timeline's value edits in the page: ask the walk's next question again, change an answer, change
what this device answered for a headless tool (`session.travel.edits.StepEdits` does the work).

Each shows the restore preview first (through the panel, `TimelineControls.show_preview`), with the input
the value needs (yes/no, a number, the tool's result as JSON); nothing runs until the inspector confirms.
A value that does not fit (`InvalidEdit`) brings the preview back with what was typed and why, so nothing
typed is lost.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...timeline import InvalidEdit, RestorePreview, UnknownCheckpoint
from .controls import TimelineControls, Work

if TYPE_CHECKING:
    from ...session.travel import TimeTravel
    from ...session.travel.edits import StepEdits

__all__ = ["STEP_EDITS", "StepEditView"]

STEP_EDITS = ("ask-again", "change-answer", "change-result")


class StepEditView:
    def __init__(self, controls: TimelineControls) -> None:
        self.controls = controls

    async def start(self, travel: TimeTravel, what: str, checkpoint: str) -> None:
        """One of `STEP_EDITS` pressed at `checkpoint`: its preview, with the value's input."""
        from ...session.travel.edits import StepEdits

        edits = StepEdits(travel)
        if what == "ask-again":
            self.controls.show_preview(edits.preview(checkpoint), "Ask again from here?", "Ask again",
                                       lambda _text: edits.ask_again(checkpoint))
        elif what == "change-answer":
            self._change_answer(edits, checkpoint)
        else:
            await self._change_result(edits, checkpoint)

    def _change_answer(self, edits: StepEdits, checkpoint: str) -> None:
        facts = edits.travel.timeline.tree.nested.facts(checkpoint)
        if facts is None or not facts.answers:
            raise UnknownCheckpoint(checkpoint, edits.thread_id)
        said = facts.answers[-1]
        self._offer(edits.preview(checkpoint), f"Change your answer: {said.question}", "Use this answer",
                    lambda text: edits.change_answer(checkpoint, text), said.text, said.kind)

    async def _change_result(self, edits: StepEdits, checkpoint: str) -> None:
        travel = edits.travel
        step = travel.timeline.tree.step(checkpoint)
        last = step.facts.last if step is not None else None
        if step is None or last is None or not step.facts.parent_id:
            raise UnknownCheckpoint(checkpoint, travel.thread.id)
        state = await travel.state_at(checkpoint)
        message: dict[str, Any] = next((m for m in state["values"].get("messages") or [] if m.get("id") == last.id),
                                       {})
        try:
            result = json.loads(str(message.get("content") or "{}")).get("result") or {}
        except (ValueError, AttributeError):
            result = {}
        self._offer(await travel.preview(step.facts.parent_id), f"Change what this device answered: {last.tool_name}",
                    "Send as a new branch", lambda text: edits.change_result(checkpoint, text),
                    json.dumps(result, indent=2, ensure_ascii=False), "json")

    def _offer(self, preview: RestorePreview, heading: str, confirm: str, work: Work,
               value: str, kind: str, error: str = "") -> None:
        """The preview with the value's input; a value that does not fit comes back with the reason."""

        async def checked(text: str) -> None:
            try:
                await work(text)
            except InvalidEdit as refused:
                self._offer(preview, heading, confirm, work, text, kind, f"{refused.code}: {refused}")

        self.controls.show_preview(preview, heading, confirm, checked, value, edit_kind=kind, edit_error=error)
