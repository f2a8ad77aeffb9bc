"""get_current_location and attach_photo, with the prompt and the platform replaced by fakes."""

import asyncio

import pytest

from sitewalk.base.device_errors import PositionError
from sitewalk.headless import HeadlessToolRegistry
from sitewalk.headless.location import get_current_location, iso_from_epoch_ms
from sitewalk.headless.photo import attach_photo
from sitewalk_shared.contracts.tools import ATTACH_PHOTO, GET_CURRENT_LOCATION, TOOL_CONTRACTS

FIX = {"latitude": 59.3293, "longitude": 18.0686, "accuracy": 12.5, "timestamp": 1_764_670_000_000}
SHA = "ab" * 32


def run(coro):
    return asyncio.run(coro)


class Fakes:
    def __init__(self, allow=True, fix=FIX, error=None, picked=None):
        self.allow, self.fix, self.error, self.picked = allow, fix, error, picked
        self.asked: list[str] = []
        self.located: list = []

    async def ask(self, purpose):
        self.asked.append(purpose)
        return self.allow

    async def locate(self, args):
        self.located.append(args)
        if self.error:
            raise self.error
        return self.fix

    async def pick(self, purpose):
        self.asked.append(purpose)
        return self.picked


def registry(fakes):
    reg = HeadlessToolRegistry()
    reg.register("get_current_location", get_current_location(fakes.ask, fakes.locate))
    reg.register("attach_photo", attach_photo(fakes.pick))
    return reg


def locate_call(**args):
    return {"id": "c1", "name": "get_current_location", "args": {"purpose": "Record the site", **args}}


def test_allowed_gives_coordinates_accuracy_and_time():
    fakes = Fakes()
    envelope = run(registry(fakes).run(locate_call(timeout_ms=500)))
    assert envelope["ok"] is True
    assert envelope["result"] == {"latitude": 59.3293, "longitude": 18.0686, "accuracy_m": 12.5,
                                  "timestamp": iso_from_epoch_ms(FIX["timestamp"]), "source": "device"}
    assert envelope["result"]["timestamp"].endswith("Z")
    assert fakes.asked == ["Record the site"] and fakes.located[0].timeout_ms == 500


def test_declined_is_permission_denied_without_asking_the_platform():
    fakes = Fakes(allow=False)
    envelope = run(registry(fakes).run(locate_call()))
    assert envelope["error"]["code"] == "permission_denied"
    assert envelope["error"]["detail"]["reason"] == "declined_by_user"
    assert fakes.located == []


@pytest.mark.parametrize("code, expected", [(1, "permission_denied"), (2, "unavailable"), (3, "timeout"),
                                            (99, "unavailable")])
def test_platform_errors_map_to_typed_codes(code, expected):
    envelope = run(registry(Fakes(error=PositionError(code, "browser said so"))).run(locate_call()))
    assert envelope["error"]["code"] == expected
    assert envelope["error"]["detail"] == {"reason": "geolocation", "geolocation_code": code}
    assert "browser said so" in envelope["error"]["message"]


def test_location_args_are_checked_before_asking():
    fakes = Fakes()
    for bad in ({"timeout_ms": 0}, {"purpose": ""}, {"where": "x"}):
        envelope = run(registry(fakes).run({"id": "c", "name": "get_current_location",
                                            "args": {"purpose": "Record the site", **bad}}))
        assert envelope["error"]["code"] == "invalid_args"
    assert fakes.asked == []


def test_impossible_fix_is_serialization_failed():
    envelope = run(registry(Fakes(fix={**FIX, "latitude": 123.0})).run(locate_call()))
    assert envelope["error"]["code"] == "serialization_failed"


def photo_call():
    return {"id": "p1", "name": "attach_photo", "args": {"purpose": "Photo of the railing"}}


def test_photo_metadata_only():
    picked = {"name": "rail.jpg", "size": 2048, "type": "image/jpeg", "sha256": SHA.upper()}
    envelope = run(registry(Fakes(picked=picked)).run(photo_call()))
    assert envelope["ok"] and envelope["result"] == {"name": "rail.jpg", "size": 2048, "type": "image/jpeg",
                                                     "sha256": SHA}
    assert set(ATTACH_PHOTO.result.model_fields) == {"name", "size", "type", "sha256"}


def test_photo_with_extra_fields_never_leaks_them():
    picked = {"name": "rail.jpg", "size": 1, "type": "image/png", "sha256": SHA, "blob": object(), "handle": "h"}
    envelope = run(registry(Fakes(picked=picked)).run(photo_call()))
    assert set(envelope["result"]) == {"name", "size", "type", "sha256"}


def test_photo_cancelled_or_not_an_image():
    assert run(registry(Fakes(picked=None)).run(photo_call()))["error"]["code"] == "permission_denied"
    text = {"name": "notes.txt", "size": 3, "type": "text/plain", "sha256": SHA}
    assert run(registry(Fakes(picked=text)).run(photo_call()))["error"]["code"] == "invalid_args"


def test_a_photo_too_big_to_hash_is_refused_with_its_size():
    from sitewalk.headless.photo import MAX_PHOTO_BYTES

    big = {"name": "pano.jpg", "size": MAX_PHOTO_BYTES + 1, "type": "image/jpeg", "sha256": None}
    envelope = run(registry(Fakes(picked=big)).run(photo_call()))
    assert envelope["error"]["code"] == "invalid_args" and "at most 25 MB" in envelope["error"]["message"]
    assert envelope["error"]["detail"] == {"size": MAX_PHOTO_BYTES + 1, "max_size": MAX_PHOTO_BYTES}
    at_limit = {**big, "size": MAX_PHOTO_BYTES, "sha256": SHA}
    assert run(registry(Fakes(picked=at_limit)).run(photo_call()))["ok"]


def test_device_tools_are_shared_contracts():
    assert TOOL_CONTRACTS["get_current_location"] is GET_CURRENT_LOCATION
    assert TOOL_CONTRACTS["attach_photo"] is ATTACH_PHOTO
    assert "measure_noise_level" in TOOL_CONTRACTS  # still defined by the agent, still not in the browser


def test_the_contracts_offered_to_a_model_are_exactly_those_the_browser_registers():
    """`BROWSER_TOOL_CONTRACTS` (what a model is offered) names each tool `sitewalk.app.device_tools` registers,
    and no other: a tool the browser would only refuse is never offered (read from the source: the app module
    imports the browser's bridge)."""
    import re
    from pathlib import Path

    from sitewalk_shared.contracts.tools import BROWSER_TOOL_CONTRACTS

    source = (Path(__file__).resolve().parents[2] / "py_src/sitewalk/app/device_tools.py").read_text()
    registered = set(re.findall(r"registry\.register\(\"([a-z_]+)\"", source))
    assert registered == set(BROWSER_TOOL_CONTRACTS)
    assert "measure_noise_level" not in BROWSER_TOOL_CONTRACTS
