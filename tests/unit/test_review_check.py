"""The server's check of one review decision (sitewalk_agent.review_check): a typed refusal, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from sitewalk_agent.field_actions import FIELD_TOOLS
from sitewalk_agent.review_check import Refusal, check_decision, decision_schema

TOOL = next(t for t in FIELD_TOOLS if t.name == "create_work_order")
ALLOWED = ["approve", "edit", "reject"]
ARGS = {"inspection_id": "inspection-42", "subject": "Loose bolt", "priority": "high"}
NAMED = {"args_revision": 1, "args_hash": "h" * 64}


def check(answer: Any, tool: Any = TOOL) -> dict[str, Any] | Refusal:
    return check_decision(answer, name="create_work_order", allowed=ALLOWED, tool=tool, pending_hash="h" * 64)


def _edit(**args: Any) -> dict[str, Any]:
    return {"type": "edit", **NAMED, "edited_action": {"name": "create_work_order", "args": {**ARGS, **args}}}


@pytest.mark.parametrize(("answer", "code", "field"), [
    ("approve", "invalid_decision", None),                                   # not an object
    ({"type": "respond", **NAMED}, "invalid_decision", None),                # not allowed for this tool
    ({"type": "approve", "args_revision": 1, "args_hash": "x"}, "stale_revision", None),
    ({"type": "approve"}, "stale_revision", None),                           # names no revision
    (_edit(priority="medium"), "invalid_edit", "priority"),
    (_edit(subject="x" * 201), "invalid_edit", "subject"),
    (_edit(cost=10), "invalid_edit", "cost"),                                # a key the tool does not name
    ({"type": "edit", **NAMED}, "invalid_edit", "edited_action"),            # the edit names no call
    ({**_edit(), "edited_action": {"name": "delete_photos", "args": ARGS}}, "invalid_edit", "edited_action.name"),
    ({"type": "reject", **NAMED, "message": 7}, "invalid_decision", "message"),
])
def test_a_bad_decision_is_a_typed_refusal(answer: Any, code: str, field: str | None) -> None:
    refused = check(answer)
    assert isinstance(refused, Refusal) and (refused.code, refused.field) == (code, field) and refused.message


def test_a_good_decision_comes_back_as_sent() -> None:
    for answer in ({"type": "approve", **NAMED}, _edit(priority="urgent"), {"type": "reject", **NAMED}):
        assert check(answer) == answer


def test_the_priority_refusal_names_the_choices() -> None:
    refused = check(_edit(priority="medium"))
    assert isinstance(refused, Refusal)
    assert refused.message == "'medium' is not allowed: one of low, normal, high, urgent"


def test_a_tool_without_an_argument_model_takes_any_object_and_the_schema_is_published() -> None:
    assert check(_edit(anything="goes"), tool=None) == _edit(anything="goes")
    schema = decision_schema("create_work_order", ALLOWED, TOOL)
    assert set(schema["discriminator"]["mapping"]) == set(ALLOWED)  # what the timeline reads (timeline.decisions)
