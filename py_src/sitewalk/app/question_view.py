"""The agent's questions in the page (`session.questions.QuestionCards`): one card per pending question.

A yes/no question gets Yes and No; a count gets a number field and Send. The cards are drawn from the
thread's pending questions (`Questions.refresh`), so after an answer, a reload or a time-travel run the
page shows exactly what the agent waits on. A refused answer (not sent) is shown on its card, and what
was typed stays in its field: a card drawn again for the same interrupt keeps its typed value.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sitewalk_shared.contracts.questions import MAX_COUNT

from ..bridge import dom
from ..ui.templating import render_template
from .regions import CardRegion, present_card

__all__ = ["QuestionCardsView"]

CONTAINER = "sw-questions"
Answer = Callable[[str, Any], Awaitable[Any]]


class QuestionCardsView:
    def __init__(self, on_answer: Answer) -> None:
        self.on_answer = on_answer
        self.pending: list[dict[str, Any]] = []
        self.refusals: dict[str, tuple[str, str]] = {}  # interrupt id -> (code, message), until drawn anew
        self._region = CardRegion(CONTAINER, "sw-questions", self._on_click, "Questions from the agent",
                                  "[data-question-answer]", on_keydown=self._on_keydown)

    def questions(self, pending: list[dict[str, Any]]) -> None:
        before = {q["interrupt_id"] for q in self.pending}
        self.pending = pending
        self.refusals = {iid: r for iid, r in self.refusals.items() if any(q["interrupt_id"] == iid for q in pending)}
        self._draw()
        arrived = [q["interrupt_id"] for q in pending if q["interrupt_id"] not in before]
        if arrived:  # a new question waits for the inspector: into view, with the focus
            present_card(self._container(), arrived[0])

    def question_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.refusals[interrupt_id] = (code, message)
        self._draw()

    def _container(self) -> Any:
        return self._region.node()

    def _draw(self) -> None:
        node = self._container()
        typed = _typed(node)
        node.hidden = not self.pending
        dom.set_html(node, render_template("question_cards.j2", questions=self.pending, refusals=self.refusals,
                                           typed=typed, max_count=MAX_COUNT))

    async def _on_click(self, event: Any) -> None:
        button = dom.closest(event.target, "[data-question-answer]")
        card = dom.closest(button, "[data-interrupt-id]") if button is not None else None
        if card is None:
            return
        if dom.attribute(card, "aria-busy") == "true":
            return  # one answer at a time per card; it is drawn again from the server's state after
        said = dom.attribute(button, "data-question-answer") or ""
        raw = str(dom.query(card, ".sw-question-number").value) if said == "number" else said
        interrupt_id = dom.attribute(card, "data-interrupt-id") or ""
        self.refusals.pop(interrupt_id, None)
        card.setAttribute("aria-busy", "true")
        try:
            await self.on_answer(interrupt_id, raw)
        finally:
            card.removeAttribute("aria-busy")

    def _on_keydown(self, event: Any) -> None:
        """Enter in a number field sends it, as a phone keyboard's Go key promises (the field is no form)."""
        if str(event.key) != "Enter" or dom.closest(event.target, ".sw-question-number") is None:
            return
        card = dom.closest(event.target, "[data-interrupt-id]")
        send = dom.query(card, "[data-question-answer='number']") if card is not None else None
        if send is not None:
            event.preventDefault()
            send.click()


def _typed(node: Any) -> dict[str, str]:
    """What is typed in each card's number field, by interrupt id (kept when the cards are drawn again)."""
    typed = {}
    for card in node.querySelectorAll("[data-interrupt-id]"):
        field = dom.query(card, ".sw-question-number")
        if field is not None and str(field.value):
            typed[dom.attribute(card, "data-interrupt-id") or ""] = str(field.value)
    return typed
