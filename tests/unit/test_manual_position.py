"""A position typed by the inspector: the checks (headless/manual_position.py) and the tool with manual entry
(headless/location.py), the prompt, the platform and the form replaced by fakes."""

import asyncio
import math

import pytest

from sitewalk.base.device_errors import PositionError
from sitewalk.headless import HeadlessToolRegistry
from sitewalk.headless.location import DECLINE, TYPE, get_current_location, iso_from_epoch_ms
from sitewalk.headless.manual_position import (
    InvalidPosition,
    ManualPosition,
    parse_manual_position,
    type_until_valid,
)
from sitewalk_shared.contracts.tools import GET_CURRENT_LOCATION, GetCurrentLocationResult

NOW_MS = 1_764_670_000_000.0
DENIED = PositionError(1, "User denied Geolocation")


@pytest.mark.parametrize("lat, lon, expected", [
    ("59.3293", "18.0686", (59.3293, 18.0686)),
    (" -33.8688 ", "151.2093", (-33.8688, 151.2093)),
    ("59.3293, 18.0686", "", (59.3293, 18.0686)),          # pasted as one pair
    ("59.3293;18.0686", "  ", (59.3293, 18.0686)),
    ("90", "-180", (90.0, -180.0)),                         # the limits are positions
    ("33.8688 S", "70.6693° W", (-33.8688, -70.6693)),      # hemisphere letters
    ("59.3293N, 18.0686E", "", (59.3293, 18.0686)),
])
def test_typed_positions_are_read_in_decimal_degrees(lat, lon, expected):
    assert parse_manual_position(lat, lon) == ManualPosition(*expected)


@pytest.mark.parametrize("lat, lon, field, code", [
    ("", "18.0686", "latitude", "missing"),
    ("59.3293", "", "longitude", "missing"),
    ("north", "18.0686", "latitude", "not_a_number"),
    ("nan", "18.0686", "latitude", "not_a_number"),
    ("59.3293", "inf", "longitude", "not_a_number"),
    ("90.0001", "18.0686", "latitude", "out_of_range"),
    ("59.3293", "-180.5", "longitude", "out_of_range"),
    ("59.3293", "18.0686 N", "longitude", "not_a_number"),   # N is not a longitude's hemisphere
    ("1" * 41, "18", "latitude", "too_long"),
])
def test_a_bad_field_is_a_typed_issue_naming_the_field(lat, lon, field, code):
    with pytest.raises(InvalidPosition) as caught:
        parse_manual_position(lat, lon)
    [issue] = caught.value.issues
    assert (issue.field, issue.code) == (field, code)
    assert issue.message and field in str(caught.value)


def test_both_fields_wrong_gives_both_issues():
    with pytest.raises(InvalidPosition) as caught:
        parse_manual_position("95", "abc")
    assert [(i.field, i.code) for i in caught.value.issues] == [("latitude", "out_of_range"),
                                                                ("longitude", "not_a_number")]


def test_the_contract_refuses_nan_and_out_of_range_too():
    base = {"latitude": 1.0, "longitude": 2.0, "timestamp": "2026-12-02T10:00:00.000Z", "source": "manual"}
    assert GetCurrentLocationResult.model_validate(base).accuracy_m is None
    for bad in ({"latitude": math.nan}, {"longitude": 181.0}, {"source": "guessed"}, {"accuracy_m": -1.0}):
        with pytest.raises(ValueError):
            GetCurrentLocationResult.model_validate({**base, **bad})
    with pytest.raises(ValueError):  # the source is always said
        GetCurrentLocationResult.model_validate({k: v for k, v in base.items() if k != "source"})


class Form:
    """The dialog's form: answers in turn (a pair of texts, or None for "Don't share"); keeps the issues shown."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.shown: list[list] = []

    async def read(self, issues):
        self.shown.append(list(issues))
        return self.answers.pop(0)


def test_the_form_asks_again_until_the_position_is_valid():
    form = Form(("95", "18"), ("abc", "18"), ("59.3293", "18.0686"))
    assert asyncio.run(type_until_valid(form.read)) == ManualPosition(59.3293, 18.0686)
    assert [[(i.field, i.code) for i in shown] for shown in form.shown] == [
        [], [("latitude", "out_of_range")], [("latitude", "not_a_number")]]


def test_the_form_given_up_after_a_bad_value_returns_nothing():
    form = Form(("95", "18"), None)
    assert asyncio.run(type_until_valid(form.read)) is None
    assert form.shown[-1][0].code == "out_of_range"


class Device:
    """The purpose prompt, the platform and the manual form, as fakes; records what each was asked."""

    def __init__(self, choice=True, error=DENIED, form=None):
        self.choice, self.error, self.form = choice, error, form
        self.located = 0
        self.offered: list = []  # the failure each manual entry was offered after (None: chosen at the prompt)

    async def ask(self, purpose):
        return self.choice

    async def locate(self, args):
        self.located += 1
        if self.error:
            raise self.error
        return {"latitude": 1.0, "longitude": 2.0, "accuracy": 3.0, "timestamp": NOW_MS}

    async def type_position(self, purpose, failure):
        self.offered.append(failure)
        return await type_until_valid(self.form.read)

    def registry(self):
        reg = HeadlessToolRegistry()
        reg.register("get_current_location",
                     get_current_location(self.ask, self.locate, self.type_position, clock=lambda: NOW_MS))
        return reg


CALL = {"id": "c1", "name": "get_current_location", "args": {"purpose": "Record the site"}}


@pytest.mark.parametrize("code", [1, 2, 3])
def test_no_position_from_the_device_offers_manual_entry_and_sends_it_as_manual(code):
    device = Device(error=PositionError(code, "no"), form=Form(("59.3293, 18.0686", "")))
    envelope = asyncio.run(device.registry().run(CALL))
    assert envelope["ok"] is True
    assert envelope["result"] == {"latitude": 59.3293, "longitude": 18.0686, "accuracy_m": None,
                                  "timestamp": iso_from_epoch_ms(NOW_MS), "source": "manual"}
    [failure] = device.offered
    assert failure.detail == {"reason": "geolocation", "geolocation_code": code}  # the form can say why


def test_manual_entry_declined_fails_exactly_as_without_it():
    plain = HeadlessToolRegistry()
    device = Device(form=Form(None))
    plain.register("get_current_location", get_current_location(device.ask, device.locate))
    without = asyncio.run(plain.run(CALL))
    declined = asyncio.run(device.registry().run(CALL))
    assert declined == without
    assert declined["error"]["code"] == "permission_denied"
    assert declined["error"]["detail"] == {"reason": "geolocation", "geolocation_code": 1}


def test_a_bad_typed_value_sends_nothing_until_corrected():
    form = Form(("59.3293", "200"), ("59.3293", "18.0686"))
    device = Device(form=form)
    envelope = asyncio.run(device.registry().run(CALL))
    assert form.shown[1][0].field == "longitude" and form.shown[1][0].code == "out_of_range"
    assert envelope["result"]["longitude"] == 18.0686 and envelope["result"]["source"] == "manual"
    given_up = asyncio.run(Device(form=Form(("59.3293", "200"), None)).registry().run(CALL))
    assert given_up["ok"] is False and "200" not in str(given_up)  # the bad value never leaves


def test_a_real_fix_is_sent_as_device_and_no_form_is_offered():
    device = Device(error=None, form=Form())
    envelope = asyncio.run(device.registry().run(CALL))
    assert envelope["result"]["source"] == "device" and envelope["result"]["accuracy_m"] == 3.0
    assert device.offered == []


def test_choosing_to_type_at_the_prompt_skips_the_device():
    device = Device(choice=TYPE, form=Form(("-33.8688", "151.2093")))
    envelope = asyncio.run(device.registry().run(CALL))
    assert envelope["result"]["source"] == "manual" and device.located == 0 and device.offered == [None]
    gave_up = asyncio.run(Device(choice=TYPE, form=Form(None)).registry().run(CALL))
    assert gave_up["error"]["detail"] == {"reason": "declined_by_user"}


@pytest.mark.parametrize("choice", [False, DECLINE])
def test_decline_at_the_prompt_stays_a_decline_without_a_form(choice):
    device = Device(choice=choice, form=Form())
    envelope = asyncio.run(device.registry().run(CALL))
    assert envelope["error"]["detail"] == {"reason": "declined_by_user"}
    assert device.located == 0 and device.offered == []


def test_the_contract_says_a_typed_position_is_manual():
    schema = GET_CURRENT_LOCATION.result.model_json_schema()
    assert schema["properties"]["source"]["enum"] == ["device", "manual"] and "source" in schema["required"]
    assert "manual" in GET_CURRENT_LOCATION.description
