"""A tool's arguments as a form, generated from the tool's JSON Schema, and read back (pure).

Editing JSON on a phone is error-prone, so the review card (and any editor of a call's arguments)
draws one input per property of the contract's `model_json_schema()`:

- an `enum`, a `const`, or a string `pattern` that only lists alternatives (`^(low|normal|high)$`)
  is a choice list: a value outside the contract cannot be chosen;
- an integer or number is a number field with its bounds (`minimum`/`maximum`);
- a boolean is a checkbox; a list of strings is a text area, one item a line;
- a string is a text field (with its `maxLength`); anything else is a small JSON text area.

`read_form` turns what the inputs hold (strings; a checkbox's bool) back into arguments: numbers are
parsed, an empty optional field is left out (the contract's default applies), and each field that
cannot be read is named. `check_args` then checks them with the tool's own model
(`typed_value`, the one checker of typed values), so nothing is sent until they fit.
Written by hand: the few schema shapes Sitewalk's contracts use do not warrant a form library, and
this runs in Pyodide where every package is bytes on a phone's first visit.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from pydantic import BaseModel

from .typed_value import InvalidEdit, pattern_choices, typed_args

__all__ = ["FormField", "check_args", "form_fields", "read_form", "schema_of"]

Typed = Mapping[str, "str | bool"]  # what the inputs hold: text, or a checkbox's state


@dataclass(frozen=True)
class FormField:
    """One input of the form, and what it shows."""

    name: str
    label: str
    kind: str  # select | text | number | checkbox | lines | json
    required: bool
    value: str = ""  # what the input holds (for a checkbox: "true" or "")
    choices: tuple[str, ...] = ()  # as the choice list shows them
    values: tuple[object, ...] = ()  # the contract's values of those choices (an enum may hold numbers)
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    hint: str = ""
    error: str = ""


def form_fields(schema: Mapping[str, object], args: Mapping[str, object], errors: Mapping[str, str] | None = None,
                typed: Typed | None = None) -> list[FormField]:
    """The form of `schema`, filled with `args` (or with what was `typed`, kept after a refusal); each
    field named in `errors` says why under it."""
    required = set(_array(schema.get("required")))
    out = []
    for name, raw in _object(schema.get("properties")).items():
        prop = _resolved(schema, _object(raw))
        field = _field(name, prop, name in required)
        if typed is not None and name in typed:
            shown = _typed_text(typed[name])
        elif name in args:
            shown = _shown(field, args[name])
        else:
            shown = _shown(field, prop.get("default")) if "default" in prop else ""
        out.append(replace(field, value=shown, error=(errors or {}).get(name, "")))
    return out


def read_form(schema: Mapping[str, object], typed: Typed) -> dict[str, object]:
    """The arguments the inputs hold, typed as the schema says; `InvalidEdit` naming each field that
    cannot be read (a bad number, a required field left empty). Inputs not in the schema are ignored."""
    args: dict[str, object] = {}
    wrong: dict[str, str] = {}
    for field in form_fields(schema, {}):
        held = typed.get(field.name, False if field.kind == "checkbox" else "")
        try:
            value = _read(field, held)
        except ValueError as error:
            wrong[field.name] = str(error)
            continue
        if value is not _LEFT_OUT:
            args[field.name] = value
    if wrong:
        said = "; ".join(f"{name}: {why}" for name, why in wrong.items())
        raise InvalidEdit(f"the arguments cannot be read: {said}", wrong)
    return args


@functools.cache
def schema_of(contract: type[BaseModel]) -> dict[str, object]:
    """The contract's JSON Schema, built once per model (cards are redrawn on every choice)."""
    return contract.model_json_schema()


def check_args(tool: str, contract: type[BaseModel] | None, args: dict[str, object]) -> dict[str, object]:
    """`args` as the tool's own contract takes them, or `InvalidEdit` naming each field that does not fit."""
    return typed_args(args, "the arguments", tool, contract)


# --- schema to field ----------------------------------------------------------------------------


def _object(value: object) -> Mapping[str, object]:
    """A JSON Schema keyword that holds an object (`properties`, `$defs`, a property), or {} when absent."""
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[object]:
    """A JSON Schema keyword that holds an array (`required`, `anyOf`, `enum`), or [] when absent."""
    return value if isinstance(value, list) else []


def _resolved(schema: Mapping[str, object], prop: Mapping[str, object]) -> dict[str, object]:
    """`prop` with its `$ref` followed and an optional (`anyOf` with null) unwrapped."""
    out = dict(prop)
    ref = out.pop("$ref", None)
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        out = {**_object(_object(schema.get("$defs")).get(ref.rsplit("/", 1)[-1])), **out}
    options = [_object(o) for o in _array(out.get("anyOf") or out.get("oneOf"))]
    options = [o for o in options if o.get("type") != "null"]
    if len(options) == 1:
        out = {**_resolved(schema, options[0]), **{k: v for k, v in out.items() if k not in ("anyOf", "oneOf")}}
    return out


def _field(name: str, prop: Mapping[str, object], required: bool) -> FormField:
    label = str(prop.get("title") or name.replace("_", " ").capitalize())
    base = FormField(name, label, "json", required, hint=str(prop.get("description") or ""))
    kind = prop.get("type")
    values = _choices(prop)
    if values:
        return replace(base, kind="select", choices=tuple(_text(v) for v in values), values=values)
    if kind in ("integer", "number"):
        return replace(base, kind="number", integer=kind == "integer", minimum=_number(prop.get("minimum")),
                       maximum=_number(prop.get("maximum")))
    if kind == "boolean":
        return replace(base, kind="checkbox")
    if kind == "string":
        maximum = prop.get("maxLength")
        return replace(base, kind="text", max_length=maximum if isinstance(maximum, int) else None)
    if kind == "array" and _object(prop.get("items")).get("type") == "string":
        return replace(base, kind="lines")
    return base


def _number(value: object) -> float | None:
    """A bound (`minimum`, `maximum`) as the schema gives it (an int stays an int), or None."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _choices(prop: Mapping[str, object]) -> tuple[object, ...]:
    if "enum" in prop:
        return tuple(_array(prop["enum"]))
    if "const" in prop:
        return (prop["const"],)
    pattern = prop.get("pattern")
    if prop.get("type") == "string" and isinstance(pattern, str):
        return pattern_choices(pattern)
    return ()


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _shown(field: FormField, value: object) -> str:
    if value is None:
        return ""
    if field.kind == "checkbox":
        return "true" if value is True else ""
    if field.kind == "lines" and isinstance(value, list):
        return "\n".join(str(item) for item in value)
    if field.kind in ("select", "text", "number") and not isinstance(value, (dict, list)):
        return _text(value)
    return json.dumps(value, ensure_ascii=False)


def _typed_text(held: str | bool) -> str:
    return ("true" if held else "") if isinstance(held, bool) else held


# --- field to value -----------------------------------------------------------------------------

_LEFT_OUT = object()  # an empty optional field: not in the arguments, the contract's default applies


def _read(field: FormField, held: str | bool) -> object:
    if field.kind == "checkbox":
        return held is True or held == "true"
    text = str(held)
    if field.kind == "text":
        return text if text or field.required else _LEFT_OUT
    if not text.strip():
        if field.required:
            raise ValueError("choose one" if field.kind == "select" else "is required")
        return _LEFT_OUT
    return _READERS[field.kind](field, text)


def _read_choice(field: FormField, text: str) -> object:
    if text not in field.choices:
        raise ValueError(f"must be one of {', '.join(field.choices)}")
    return field.values[field.choices.index(text)]


def _read_number(field: FormField, text: str) -> int | float:
    try:
        number = float(text.strip())
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError("must be a finite number")
    if not field.integer:
        return number
    if not number.is_integer():
        raise ValueError(f"{text.strip()!r} is not a whole number")
    return int(number)


def _read_lines(field: FormField, text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _read_json(field: FormField, text: str) -> object:
    try:
        return json.loads(text)
    except ValueError as error:
        raise ValueError(f"is not JSON: {error}") from None


_READERS = {"select": _read_choice, "number": _read_number, "lines": _read_lines, "json": _read_json}
