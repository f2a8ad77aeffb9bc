"""A tool's arguments as a form generated from its JSON Schema, and read back: choice lists for enums and
patterns of alternatives, numbers with bounds, checkboxes, text; coercion, empty optional fields, bad input."""

from __future__ import annotations

from enum import Enum
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from sitewalk.review_form import check_args, form_fields, read_form
from sitewalk.timeline import InvalidEdit
from sitewalk_shared.contracts.field_actions import NotifyArgs, PhotosArgs, WorkOrderArgs
from sitewalk_shared.contracts.tools import GetCurrentLocationArgs

ORDER = WorkOrderArgs.model_json_schema()
LOCATION = GetCurrentLocationArgs.model_json_schema()


class Level(Enum):
    ONE = 1
    TWO = 2


class Sample(BaseModel):
    level: Level
    mode: Literal["fast", "slow"] = "fast"
    note: str | None = None
    ratio: float | None = Field(default=None, ge=0, le=1)


def by_name(schema, args, **kw):
    return {f.name: f for f in form_fields(schema, args, **kw)}


def test_a_pattern_of_alternatives_is_a_choice_list_and_strings_are_text_fields():
    fields = by_name(ORDER, {"inspection_id": "inspection-42", "subject": "Bolt", "priority": "high"})
    assert list(fields) == ["inspection_id", "subject", "priority"]
    priority = fields["priority"]
    assert (priority.kind, priority.choices, priority.value, priority.required) == \
        ("select", ("low", "normal", "high", "urgent"), "high", False)
    assert (fields["subject"].kind, fields["subject"].max_length, fields["subject"].required) == ("text", 200, True)


def test_numbers_carry_their_bounds_booleans_are_checkboxes_and_defaults_fill_what_args_lack():
    fields = by_name(LOCATION, {"purpose": "site entry"})
    timeout = fields["timeout_ms"]
    assert (timeout.kind, timeout.integer, timeout.minimum, timeout.maximum, timeout.value) == \
        ("number", True, 1, 60_000, "10000")
    assert (fields["high_accuracy"].kind, fields["high_accuracy"].value) == ("checkbox", "")


def test_enums_literals_optionals_and_lists_get_their_own_inputs():
    fields = by_name(Sample.model_json_schema(), {"level": 2})
    assert (fields["level"].kind, fields["level"].choices, fields["level"].value) == ("select", ("1", "2"), "2")
    assert (fields["mode"].kind, fields["mode"].choices) == ("select", ("fast", "slow"))
    assert (fields["note"].kind, fields["note"].required, fields["note"].value) == ("text", False, "")
    assert (fields["ratio"].kind, fields["ratio"].minimum, fields["ratio"].maximum) == ("number", 0, 1)
    photos = by_name(PhotosArgs.model_json_schema(), {"photo_ids": ["p1", "p2"]})["photo_ids"]
    assert (photos.kind, photos.value) == ("lines", "p1\np2")


def test_what_was_typed_and_the_errors_are_shown_back():
    fields = by_name(ORDER, {"subject": "Bolt"}, typed={"subject": "", "priority": "low"},
                     errors={"subject": "is required"})
    assert (fields["subject"].value, fields["subject"].error, fields["priority"].value) == ("", "is required", "low")


def test_reading_the_form_back_types_each_value():
    args = read_form(LOCATION, {"purpose": "site entry", "timeout_ms": " 2500 ", "high_accuracy": True})
    assert args == {"purpose": "site entry", "timeout_ms": 2500, "high_accuracy": True}
    assert read_form(Sample.model_json_schema(), {"level": "1", "mode": "slow", "ratio": "0.25"}) == \
        {"level": 1, "mode": "slow", "ratio": 0.25}
    assert read_form(PhotosArgs.model_json_schema(), {"inspection_id": "i", "photo_ids": "p1\n\n p2 \n"}) == \
        {"inspection_id": "i", "photo_ids": ["p1", "p2"]}


def test_empty_optional_fields_are_left_out_so_the_contract_default_applies():
    args = read_form(LOCATION, {"purpose": "site entry", "timeout_ms": ""})
    assert args == {"purpose": "site entry", "high_accuracy": False}  # an unticked box is False, not absent
    assert check_args("get_current_location", GetCurrentLocationArgs, args)["timeout_ms"] == 10_000
    assert read_form(Sample.model_json_schema(), {"level": "2", "note": "", "ratio": " "}) == {"level": 2}
    assert "priority" not in read_form(ORDER, {"inspection_id": "i", "subject": "s", "priority": ""})


@pytest.mark.parametrize(("typed", "field", "why"), [
    ({"purpose": "p", "timeout_ms": "soon"}, "timeout_ms", "'soon' is not a number"),
    ({"purpose": "p", "timeout_ms": "2.5"}, "timeout_ms", "'2.5' is not a whole number"),
    ({"purpose": "p", "timeout_ms": "inf"}, "timeout_ms", "must be a finite number"),
])
def test_a_bad_number_is_named_and_nothing_is_read(typed, field, why):
    with pytest.raises(InvalidEdit) as refused:
        read_form(LOCATION, typed)
    assert refused.value.fields == {field: why} and field in str(refused.value)


def test_a_choice_outside_the_list_or_a_required_choice_left_empty_is_named():
    with pytest.raises(InvalidEdit) as refused:
        read_form(ORDER, {"inspection_id": "i", "subject": "s", "priority": "medium"})
    assert refused.value.fields == {"priority": "must be one of low, normal, high, urgent"}
    with pytest.raises(InvalidEdit) as empty:
        read_form(Sample.model_json_schema(), {"level": ""})
    assert empty.value.fields == {"level": "choose one"}


def test_inputs_not_in_the_schema_are_ignored():
    assert read_form(NotifyArgs.model_json_schema(), {"inspection_id": "i", "message": "m", "extra": "x"}) == \
        {"inspection_id": "i", "message": "m"}


def test_the_contract_names_each_field_that_does_not_fit():
    with pytest.raises(InvalidEdit) as refused:
        check_args("create_work_order", WorkOrderArgs, {"inspection_id": "i", "subject": "", "priority": "medium"})
    assert refused.value.code == "invalid_edit"
    assert refused.value.fields["priority"] == "must be one of low, normal, high, urgent"
    assert set(refused.value.fields) == {"subject", "priority"}
    with pytest.raises(InvalidEdit) as bound:
        check_args("get_current_location", GetCurrentLocationArgs, {"purpose": "site entry", "timeout_ms": 0})
    assert list(bound.value.fields) == ["timeout_ms"]
