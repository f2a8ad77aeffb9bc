"""Questions the agent asks the inspector in person (the site walk): shown from the thread's state,
answered by interrupt id.

- What is pending is always read from the thread's state (`pending_interrupts` whose value is a
  `contracts.questions.QuestionRequest`, found in the subgraph's task too), never from this page's clicks:
  a reload, a reopen or another tab shows exactly the question the agent waits on.
- An answer is checked before anything is sent (`parse_answer`): one that does not fit its question is
  refused `invalid_answer` on its card, one whose question is no longer pending `already_answered`;
  nothing is sent and the card stays. The agent checks again (a refused answer is asked again with why).
- The answer goes as the resume of its interrupt, `{interrupt_id: {"question_id", "answer"}}`; the run
  goes on (the next question, or what the agent makes of the answers) and the cards are drawn again.
- An answer the server refuses for want of a sign-in (401: the token was revoked or expired) is refused
  `sign_in_required` on its card, which stays with what was typed: once signed in, answer again (an
  answer that did land before the 401 has its card gone by then, so nothing is answered twice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from sitewalk_shared.contracts.questions import InvalidAnswer, parse_answer, question_of

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base.server_errors import Unauthorized
from .loop import RunLoop
from .refusals import Refused
from .thread import Thread

__all__ = ["PendingQuestion", "QuestionCards", "Questions", "pending_questions"]

RefusalCode = Literal["invalid_answer", "already_answered", "sign_in_required"]
SIGN_IN_TO_ANSWER = "not sent: the agent server asks you to sign in. Sign in, then send your answer again"


@dataclass(frozen=True)
class PendingQuestion:
    interrupt_id: str
    question_id: str
    question: str
    kind: str  # yes_no | number
    error: str  # why the agent refused the last answer ("" the first time it asks)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def pending_questions(state: Mapping[str, object]) -> list[PendingQuestion]:
    """The questions a thread state waits on, in the server's order."""
    found = []
    for interrupt in pending_interrupts(dict(state)):
        request = question_of(interrupt.get("value"))
        if request is not None:
            found.append(PendingQuestion(interrupt["id"], request.question_id, request.question, request.kind,
                                         request.error))
    return found


def resume_value(question: PendingQuestion, raw: object) -> dict[str, Any]:
    """What answers `question` (raises Refused when `raw` does not fit it)."""
    try:
        value = parse_answer(question.kind, raw)
    except InvalidAnswer as error:
        raise Refused("invalid_answer", str(error), interrupt_id=question.interrupt_id) from error
    return {"question_id": question.question_id, "answer": value}


class QuestionCards(Protocol):
    """Where pending questions are shown (`app.question_view.QuestionCardsView` in the browser)."""

    def questions(self, pending: list[dict[str, Any]]) -> None:
        """Every question the agent waits on (`PendingQuestion.as_dict`), one card each; none: no cards."""

    def question_refused(self, interrupt_id: str, code: str, message: str) -> None:
        """An answer not sent (invalid_answer, already_answered), on its card."""


class NoCards:
    def questions(self, pending: list[dict[str, Any]]) -> None:
        return None

    def question_refused(self, interrupt_id: str, code: str, message: str) -> None:
        return None


class Questions:
    def __init__(self, client: AgentServerClient, thread: Thread, loop: RunLoop,
                 cards: QuestionCards | None = None) -> None:
        self.client = client
        self.thread = thread
        self.loop = loop
        self.cards: QuestionCards = cards or NoCards()

    async def refresh(self) -> list[PendingQuestion]:
        """Read the thread's state and show every question it waits on."""
        pending = pending_questions(await self.client.threads.get_state(self.thread.id))
        self.cards.questions([q.as_dict() for q in pending])
        return pending

    async def answer(self, interrupt_id: str, raw: object) -> Refused | None:
        """Send the answer to one pending question and carry on with the run; the refusal when not sent."""
        try:
            await self._answer(interrupt_id, raw)
        except Refused as refused:
            self.cards.question_refused(interrupt_id, refused.code, refused.message)
            return refused
        return None

    async def _answer(self, interrupt_id: str, raw: object) -> None:
        try:
            state = await self.client.threads.get_state(self.thread.id)
        except Unauthorized as error:
            raise Refused("sign_in_required", SIGN_IN_TO_ANSWER, interrupt_id=interrupt_id) from error
        question = next((q for q in pending_questions(state) if q.interrupt_id == interrupt_id), None)
        if question is None:
            raise Refused("already_answered", "the agent no longer waits on this question", interrupt_id=interrupt_id)
        value = resume_value(question, raw)
        try:
            await self.loop.run(command={"resume": {interrupt_id: value}})
        except Unauthorized as error:  # refused before it ran (one that landed anyway: its card goes once signed in)
            raise Refused("sign_in_required", SIGN_IN_TO_ANSWER, interrupt_id=interrupt_id) from error
        try:
            await self.refresh()
        except Unauthorized:  # answered; the cards are read again once signed in
            return
