"""Questions the agent asks the inspector in person (the site walk), shared by the agent and the browser.

The agent pauses with an interrupt whose value is a `QuestionRequest`:

    {"type": "question", "question_id": "handrail_secure", "question": "Is the handrail secure?",
     "kind": "yes_no", "inspection_id": "inspection-42", "error": ""}

and is resumed with `{"question_id": ..., "answer": true | false | <whole number>}`. Both sides check
the answer with `parse_answer`: the browser before it sends, the agent again when it takes it (a
refused answer asks the same question again with `error` saying why, so nothing is lost).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import SitewalkError

__all__ = ["MAX_COUNT", "QUESTION_TYPE", "AnswerKind", "InvalidAnswer", "Question", "QuestionRequest",
           "answer_text", "parse_answer", "question_of"]

QUESTION_TYPE = "question"
MAX_COUNT = 10_000  # a count of bolts, cracks, ...: beyond this it is a typo
AnswerKind = Literal["yes_no", "number"]


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    text: str = Field(min_length=1, max_length=200)
    kind: AnswerKind


class QuestionRequest(BaseModel):
    """The interrupt's value: one question, and why the last answer was refused (if it was)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["question"] = "question"
    question_id: str
    question: str
    kind: AnswerKind
    inspection_id: str = ""
    error: str = ""

    @classmethod
    def of(cls, question: Question, inspection_id: str = "", error: str = "") -> QuestionRequest:
        return cls(question_id=question.id, question=question.text, kind=question.kind,
                   inspection_id=inspection_id, error=error)


class InvalidAnswer(SitewalkError, ValueError):
    """An answer that does not fit its question (`code` for machines, the message for people)."""

    code = "invalid_answer"


def question_of(value: object) -> QuestionRequest | None:
    """The question an interrupt's value asks, or None when it is something else (a tool, a review)."""
    if not isinstance(value, Mapping) or value.get("type") != QUESTION_TYPE:
        return None
    try:
        return QuestionRequest.model_validate(dict(value))
    except ValueError:
        return None


_YES = {"yes", "y", "true"}
_NO = {"no", "n", "false"}


def parse_answer(kind: str, raw: object) -> bool | int:
    """The answer as its kind's value: yes_no -> bool, number -> a whole number 0..MAX_COUNT.

    Raises InvalidAnswer saying what is expected."""
    if kind not in ("yes_no", "number"):
        raise InvalidAnswer(f"unknown kind of question {kind!r}")
    if kind == "yes_no":
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower() if isinstance(raw, str) else ""
        if word in _YES | _NO:
            return word in _YES
        raise InvalidAnswer(f"answer yes or no (got {raw!r})")
    if isinstance(raw, bool):
        raise InvalidAnswer("answer with a whole number, not yes or no")
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw.strip())
    if not isinstance(raw, int) or not 0 <= raw <= MAX_COUNT:
        raise InvalidAnswer(f"answer with a whole number from 0 to {MAX_COUNT} (got {raw!r})")
    return raw


def answer_text(kind: str, value: object) -> str:
    """An answer as people read it: yes / no, or the number."""
    if kind == "yes_no" and isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
