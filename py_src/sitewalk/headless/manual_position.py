"""A position the inspector types when the device gives none: parsing, checks, and the form's loop.

Pure, so it runs in CPython tests. Decimal degrees (WGS 84), a dot as the decimal mark. The latitude
field also takes both numbers pasted as "59.3293, 18.0686" (the longitude field left empty), and a
trailing hemisphere letter ("59.3293 N", "18.0686 W": S and W are negative). A bad value is an
`InvalidPosition` with one issue per field, so the form can say what is wrong next to each field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sitewalk_shared.errors import SitewalkError

__all__ = ["InvalidPosition", "ManualPosition", "PositionIssue", "parse_manual_position", "type_until_valid"]

LIMITS = {"latitude": 90.0, "longitude": 180.0}
MAX_CHARS = 40  # per field: longer text is not a coordinate
_HEMISPHERES = {"latitude": {"N": 1, "S": -1}, "longitude": {"E": 1, "W": -1}}
_PAIR = re.compile(r"^\s*(\S+(?:\s*[NSns])?)\s*[,;]\s*(\S+(?:\s*[EWew])?)\s*$")


@dataclass(frozen=True)
class ManualPosition:
    latitude: float
    longitude: float


@dataclass(frozen=True)
class PositionIssue:
    field: str  # latitude | longitude
    code: str  # missing | not_a_number | out_of_range | too_long
    message: str


class InvalidPosition(SitewalkError, ValueError):
    """The typed text is not a position; `issues` names each field that is wrong and why."""

    def __init__(self, issues: list[PositionIssue]):
        super().__init__("; ".join(f"{i.field}: {i.message}" for i in issues))
        self.issues = issues


def parse_manual_position(latitude: str, longitude: str = "") -> ManualPosition:
    """The position typed in the two fields, or InvalidPosition naming every bad field."""
    latitude, longitude = str(latitude or "").strip(), str(longitude or "").strip()
    pair = _PAIR.match(latitude) if not longitude else None
    if pair:  # "lat, lon" pasted into the first field
        latitude, longitude = pair.group(1), pair.group(2)
    values: dict[str, float] = {}
    issues: list[PositionIssue] = []
    for field, text in (("latitude", latitude), ("longitude", longitude)):
        try:
            values[field] = _degrees(field, text)
        except _Bad as bad:
            issues.append(PositionIssue(field, bad.code, bad.message))
    if issues:
        raise InvalidPosition(issues)
    return ManualPosition(values["latitude"], values["longitude"])


class _Bad(SitewalkError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _degrees(field: str, text: str) -> float:
    limit = LIMITS[field]
    if not text:
        raise _Bad("missing", f"Type the {field} in decimal degrees.")
    if len(text) > MAX_CHARS:
        raise _Bad("too_long", f"A {field} is a number of at most {MAX_CHARS} characters.")
    sign, number = 1, text.replace("°", "").strip()
    letter = number[-1:].upper()
    if letter in _HEMISPHERES[field]:
        sign, number = _HEMISPHERES[field][letter], number[:-1].strip()
    try:
        value = float(number)
    except ValueError:
        raise _Bad("not_a_number", f"{text!r} is not a number: use decimal degrees, e.g. "
                                   f"{'59.3293' if field == 'latitude' else '18.0686'}.") from None
    if not math.isfinite(value):
        raise _Bad("not_a_number", f"{text!r} is not a number of degrees.")
    value *= sign
    if not -limit <= value <= limit:
        raise _Bad("out_of_range", f"A {field} is between -{limit:g} and {limit:g} degrees; {value:g} is not.")
    return value


Read = Callable[[list[PositionIssue]], Awaitable[tuple[str, str] | None]]
"""Show the form with these issues (none the first time) and wait: the two fields' text, or None
when the inspector does not want to share a position."""


async def type_until_valid(read: Read) -> ManualPosition | None:
    """Ask until the typed text is a position, or the inspector gives up (None). Nothing is returned,
    and so nothing is sent, while a field is wrong; the form keeps what was typed so it can be corrected."""
    issues: list[PositionIssue] = []
    while True:
        typed = await read(issues)
        if typed is None:
            return None
        try:
            return parse_manual_position(*typed)
        except InvalidPosition as exc:
            issues = exc.issues
