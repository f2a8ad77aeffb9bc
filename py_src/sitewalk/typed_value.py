"""A value the inspector typed at a step (a tool's answer, a call's arguments), read as a JSON object and
checked by the tool's own pydantic model; `InvalidEdit` saying what does not fit, field by field, so
nothing is sent. The review card's form (`sitewalk.review_form`) checks its arguments here too.

Below both the timeline and the review form, so neither imports the other for it. `InvalidEdit` is a
`TimelineError` (the time-travel view shows any `TimelineError` by its code), so the base lives here
with it; `sitewalk.timeline.errors` hands both on beside the timeline's other refusals."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from pydantic import BaseModel, ValidationError

from sitewalk_shared.errors import SitewalkError

__all__ = ["InvalidEdit", "TimelineError", "pattern_choices", "typed_args", "typed_object"]


class TimelineError(SitewalkError, ValueError):
    """Base of every refused time-travel request."""

    code = "timeline_error"


class InvalidEdit(TimelineError):
    """A value changed at a step that does not fit (an answer of the wrong kind, a result that is not JSON).

    `fields` names each argument that does not fit and why (`{"priority": "must be one of ..."}`), so a
    form can say it under the field; empty when the value as a whole is wrong (not JSON, not an object)."""

    code = "invalid_edit"

    def __init__(self, message: str, fields: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.fields: dict[str, str] = dict(fields or {})


# A pattern that only lists alternatives, e.g. ^(low|normal|high|urgent)$: a choice list in disguise.
_ALTERNATIVES = re.compile(r"^\^\(([\w .-]+(?:\|[\w .-]+)*)\)\$$")


def pattern_choices(pattern: str) -> tuple[str, ...]:
    """The alternatives of a pattern like `^(a|b|c)$`; () for any other pattern."""
    found = _ALTERNATIVES.match(pattern)
    return tuple(found.group(1).split("|")) if found else ()


def typed_object(text: str, what: str, tool: str, contract: type[BaseModel] | None) -> dict[str, object]:
    """`text` as a JSON object that fits `contract` (as is when the tool has none); `what` names it."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise InvalidEdit(f"{what} is not JSON: {error}") from error
    if not isinstance(value, dict):
        raise InvalidEdit(f"{what} must be a JSON object")
    return typed_args(value, what, tool, contract)


def typed_args(value: dict[str, object], what: str, tool: str, contract: type[BaseModel] | None
               ) -> dict[str, object]:
    """`value` as `contract` dumps it (as is when the tool has none), or `InvalidEdit` naming each wrong field."""
    if contract is None:
        return value
    try:
        return contract.model_validate(value).model_dump(mode="json")
    except ValidationError as error:
        fields = wrong_fields(error)
        said = "; ".join(f"{name}: {why}" if name else why for name, why in fields.items())
        raise InvalidEdit(f"{tool} cannot take {what}: {said}", fields) from error


def wrong_fields(error: ValidationError) -> dict[str, str]:
    """Each wrong field (dotted path, '' for the object itself) and why, in words a reviewer reads."""
    out: dict[str, str] = {}
    for problem in error.errors():
        name = ".".join(str(part) for part in problem["loc"])
        pattern = str((problem.get("ctx") or {}).get("pattern", ""))
        choices = pattern_choices(pattern) if problem["type"] == "string_pattern_mismatch" else ()
        out.setdefault(name, f"must be one of {', '.join(choices)}" if choices else str(problem["msg"]))
    return out
