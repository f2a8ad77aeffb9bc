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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..contracts.questions import InvalidAnswer, parse_answer, question_of
from .loop import RunLoop
from .thread import Thread

__all__ = ["PendingQuestion", "QuestionCards", "QuestionRefused", "Questions", "pending_questions"]

RefusalCode = Literal["invalid_answer", "already_answered"]


@dataclass(frozen=True)
class PendingQuestion:
    interrupt_id: str
    question_id: str
    question: str
    kind: str  # yes_no | number
    error: str  # why the agent refused the last answer ("" the first time it asks)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class QuestionRefused(ValueError):
    """An answer that was not sent: its interrupt, a code, and why."""

    def __init__(self, interrupt_id: str, code: RefusalCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.interrupt_id, self.code, self.message = interrupt_id, code, message


def pending_questions(state: Mapping[str, Any]) -> list[PendingQuestion]:
    """The questions a thread state waits on, in the server's order."""
    found = []
    for interrupt in pending_interrupts(dict(state)):
        request = question_of(interrupt.get("value"))
        if request is not None:
            found.append(PendingQuestion(interrupt["id"], request.question_id, request.question, request.kind,
                                         request.error))
    return found


def resume_value(question: PendingQuestion, raw: Any) -> dict[str, Any]:
    """What answers `question` (raises QuestionRefused when `raw` does not fit it)."""
    try:
        value = parse_answer(question.kind, raw)
    except InvalidAnswer as error:
        raise QuestionRefused(question.interrupt_id, "invalid_answer", str(error)) from error
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

    async def answer(self, interrupt_id: str, raw: Any) -> QuestionRefused | None:
        """Send the answer to one pending question and carry on with the run; the refusal when not sent."""
        pending = {q.interrupt_id: q for q in pending_questions(await self.client.threads.get_state(self.thread.id))}
        try:
            question = pending.get(interrupt_id)
            if question is None:
                raise QuestionRefused(interrupt_id, "already_answered", "the agent no longer waits on this question")
            value = resume_value(question, raw)
        except QuestionRefused as refused:
            self.cards.question_refused(refused.interrupt_id, refused.code, refused.message)
            return refused
        await self.loop.run(command={"resume": {interrupt_id: value}})
        await self.refresh()
        return None
