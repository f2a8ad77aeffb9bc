"""One refusal type for answers, review decisions and stuck-run choices (`sitewalk.session.refusals`)."""

from __future__ import annotations

import pytest

from sitewalk.session.progress import parse_choice
from sitewalk.session.questions import PendingQuestion, resume_value
from sitewalk.session.refusals import Refused


def test_a_refusal_carries_its_code_reason_interrupt_and_field():
    refused = Refused("invalid_edit", "must be one of low, normal", interrupt_id="i1", field="priority")
    assert (refused.code, refused.message, refused.interrupt_id, refused.field) == (
        "invalid_edit", "must be one of low, normal", "i1", "priority")
    assert str(refused) == "invalid_edit: priority: must be one of low, normal"
    assert str(Refused("not_stuck", "no run is stuck")) == "not_stuck: no run is stuck"


def test_a_stuck_choice_and_a_question_refuse_with_the_same_type():
    with pytest.raises(Refused) as stuck:
        parse_choice("explode")
    assert (stuck.value.code, stuck.value.interrupt_id) == ("unknown_choice", None)
    question = PendingQuestion("i7", "q1", "How loud (dB)?", "number", "")
    with pytest.raises(Refused) as answer:
        resume_value(question, "loud")
    assert (answer.value.code, answer.value.interrupt_id) == ("invalid_answer", "i7")
