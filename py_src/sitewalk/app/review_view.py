"""The review cards in the page (`session.reviews.ReviewCards`): one card per pending per-call review.

The cards are drawn from the server's pending reviews (`ReviewBoard`); Approve, Reject (with its
reason) and "Use these arguments" (an edit: revision n+1, from the card's form generated from the tool's
schema, or "Use this JSON" from its raw JSON) only record a choice on the card; an edit that does not fit
the tool's contract records nothing and is named under the editor (`ReviewBoard.choose`). "Send
decisions" sends every decided card in one resume through `on_submit`; undecided cards stay pending.
What the server then waits on is read again and drawn again, so nothing shown comes from local
button state after a send or a reload. A send the server refuses for want of a sign-in puts each
decision back on its card with "sign in to send it" (`ReviewBoard.hold`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..bridge import dom
from ..session.refusals import Refused
from ..session.review_board import ReviewBoard, SeenRevision
from ..ui.templating import render_template
from .regions import CardRegion, present_card

__all__ = ["ReviewCardsView"]

CONTAINER = "sw-reviews"
Submit = Callable[[dict[str, dict[str, Any]]], Awaitable[Any]]


class ReviewCardsView:
    def __init__(self, on_submit: Submit) -> None:
        self.on_submit = on_submit
        self.board = ReviewBoard()
        self._region = CardRegion(CONTAINER, "sw-reviews", self._on_click, "Reviews", "[data-review-action]")

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        before = set(self.board.pending)
        self.board.show(pending)
        self._draw()
        arrived = [iid for iid in self.board.pending if iid not in before]
        if arrived:  # a new review waits for the inspector: into view, with the focus
            present_card(self._container(), arrived[0])

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.board.refuse(interrupt_id, code, message)
        self._draw()

    def review_held(self, interrupt_id: str, decision: dict[str, Any], message: str) -> None:
        self.board.hold(interrupt_id, decision, message)
        self._draw()

    def _container(self) -> Any:
        return self._region.node()

    def _draw(self) -> None:
        node = self._container()
        cards = self.board.cards()
        node.hidden = not cards and not self.board.notices()
        dom.set_html(node, render_template("review_cards.j2", cards=cards, notices=self.board.notices()))

    async def _on_click(self, event: Any) -> None:
        button = dom.closest(event.target, "[data-review-action]")
        if button is None:
            return
        action = dom.attribute(button, "data-review-action") or ""
        if action == "send":
            decisions = self.board.take()
            self._draw()
            if decisions:
                await self.on_submit(decisions)
            return
        card = dom.closest(button, "[data-interrupt-id]")
        if card is not None:
            self._choose(card, action)

    def _choose(self, card: object, action: str) -> None:
        iid = dom.attribute(card, "data-interrupt-id") or ""
        seen = SeenRevision(int(dom.attribute(card, "data-args-revision") or 0),
                            dom.attribute(card, "data-args-hash") or "")
        try:
            self.board.choose(iid, action, seen, args_text=str(dom.query(card, ".sw-review-json").value),
                              reason=str(dom.query(card, ".sw-review-reason").value), form=_form_inputs(card))
        except Refused as refused:
            if refused.code != "invalid_edit":  # an edit that does not fit is said under its editor
                self.board.refuse(iid, refused.code, refused.message)
        self._draw()


def _form_inputs(card: Any) -> dict[str, str | bool]:
    """What the card's form holds: each input's text by its name, a checkbox's state."""
    held: dict[str, str | bool] = {}
    for node in card.querySelectorAll(".sw-review-field [name]"):
        name = str(node.name)
        held[name] = bool(node.checked) if str(node.type) == "checkbox" else str(node.value)
    return held
