"""A value typed at a timeline step is a JSON object the tool's own model accepts, or a clear InvalidEdit."""

import pytest

from sitewalk.timeline import InvalidEdit
from sitewalk.typed_value import typed_object
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

LOCATION = TOOL_CONTRACTS["get_current_location"].result


def test_a_value_that_fits_comes_back_as_the_model_dumps_it():
    typed = '{"latitude": 59.3, "longitude": 18.1, "accuracy_m": null, "timestamp": "2026-12-03T10:00:00Z", ' \
            '"source": "manual"}'
    assert typed_object(typed, "the answer", "get_current_location", LOCATION)["source"] == "manual"


def test_a_tool_without_a_contract_takes_any_object():
    assert typed_object('{"a": 1}', "the arguments", "close_work_order", None) == {"a": 1}


@pytest.mark.parametrize(("text", "why"), [
    ("{not json", "the answer is not JSON"),
    ("[1, 2]", "the answer must be a JSON object"),
    ('{"latitude": 91, "longitude": 0}', "get_current_location cannot take the answer"),
])
def test_a_value_that_does_not_fit_is_refused_saying_why(text, why):
    with pytest.raises(InvalidEdit, match=why):
        typed_object(text, "the answer", "get_current_location", LOCATION)


def test_each_wrong_field_is_named_with_a_reason_a_reviewer_reads():
    with pytest.raises(InvalidEdit) as refused:
        typed_object('{"latitude": 91, "longitude": 0, "timestamp": "t", "source": "guess"}', "the answer",
                     "get_current_location", LOCATION)
    assert set(refused.value.fields) == {"latitude", "source"}
    assert "latitude: " in str(refused.value) and "source: " in str(refused.value)
