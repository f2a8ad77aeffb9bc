"""A reviewed call in words an inspector reads: the action as a person names it, and each argument under
its title from the tool's own contract (pure).

The review card shows this first and the raw JSON one tap away (`review_card.j2`). Titles come from the
contract's JSON Schema (`sitewalk_shared.contracts.field_actions`: each pydantic field's `title`), the
action's name from `calls.words.call_title` (the one title a call has, the call list's too), so the words
cannot drift from what the tool takes. A tool the device has no contract for is named by its code name
made readable, its arguments by their keys.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from sitewalk_shared.contracts.field_actions import FIELD_ARGS

from .calls.words import call_title

__all__ = ["CallInWords", "call_in_words", "value_in_words"]


@dataclass(frozen=True)
class CallInWords:
    """What a card says of a call: its title and (field title, value in words) per argument."""

    title: str
    fields: tuple[tuple[str, str], ...]


def _readable(name: str) -> str:
    return name.replace("_", " ").strip().capitalize() or "?"


def value_in_words(value: object) -> str:
    """A value as a person reads it: a list one item after another, yes/no, "not set" for nothing."""
    if value is None or value == "" or value == []:
        return "not set"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        return ", ".join(str(item) for item in value)
    if isinstance(value, (str, int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@functools.cache
def _properties(contract: type[BaseModel]) -> dict[str, object]:
    """The contract's JSON Schema properties, built once per model (cards are redrawn on every choice)."""
    return dict(contract.model_json_schema().get("properties") or {})


def call_in_words(name: str, args: Mapping[str, object]) -> CallInWords:
    """The call `name(args)` in words: the fields in the contract's order, then any the contract lacks."""
    contract = FIELD_ARGS.get(name)
    props: Mapping[str, object] = _properties(contract) if contract is not None else {}
    order = [key for key in props if key in args] + sorted(key for key in args if key not in props)
    fields = tuple((str(_title(props.get(key)) or _readable(key)), value_in_words(args[key])) for key in order)
    return CallInWords(call_title(name), fields)


def _title(prop: object) -> object:
    """A schema property's `title` (None when it has none)."""
    return prop.get("title") if isinstance(prop, dict) else None
