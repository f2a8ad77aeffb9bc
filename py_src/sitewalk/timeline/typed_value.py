"""A value the inspector typed at a step (a tool's answer, a call's arguments), read as a JSON object and
checked by the tool's own pydantic model; `InvalidEdit` saying what does not fit, so nothing is sent."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from .errors import InvalidEdit

__all__ = ["typed_object"]


def typed_object(text: str, what: str, tool: str, contract: type[BaseModel] | None) -> dict[str, Any]:
    """`text` as a JSON object that fits `contract` (as is when the tool has none); `what` names it."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise InvalidEdit(f"{what} is not JSON: {error}") from error
    if not isinstance(value, dict):
        raise InvalidEdit(f"{what} must be a JSON object")
    if contract is None:
        return value
    try:
        return contract.model_validate(value).model_dump(mode="json")
    except ValueError as error:
        raise InvalidEdit(f"{tool} cannot take {what}: {error}") from error
