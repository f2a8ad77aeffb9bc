"""A screen that failed validation, as plain text lines: what the agent meant to show.

A spec with issues is not rendered (the last good screen stays), but the inspector should still
read what it said: each element's type and its text-like props, in tree order from the root,
then elements the tree does not reach. Works on any JSON, however broken: a missing root, an
element that is not an object or a cycle gives fewer lines, never an exception. The lines are
plain text; the view escapes them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping

__all__ = ["MAX_LINES", "fallback_lines", "patched_for_fallback"]

# Props that carry words for a person (ids, actions and layout are left out), in reading order.
TEXT_PROPS = ("title", "text", "label", "site", "inspector", "value", "level", "findings", "items")
MAX_LINES = 200
MAX_LINE_CHARS = 500


def fallback_lines(spec: object) -> list[str]:
    """`Type: text · text` for each element of a (possibly invalid) spec, in tree order."""
    if not isinstance(spec, dict) or not isinstance(spec.get("elements"), dict):
        return []
    elements = spec["elements"]
    order: list[str] = []
    _walk(elements, spec.get("root"), order, set())
    order += [key for key in elements if key not in order]  # unreachable elements still say something
    lines = [_line(elements[key]) for key in order]
    return [line for line in lines if line][:MAX_LINES]


def patched_for_fallback(base: Mapping[str, object] | None, patch_text: str) -> dict[str, object]:
    """The spec inline patch lines were writing, applied leniently (a line that fails is skipped).

    The strict application stops at the first bad line; the fallback wants all the words sent.
    """
    import jsonpatch  # local: only a failed inline screen needs it

    doc: object = copy.deepcopy(base) if isinstance(base, dict) else {"root": "", "elements": {}}
    for line in patch_text.splitlines():
        try:
            doc = jsonpatch.apply_patch(doc, [json.loads(line)])
        except (ValueError, TypeError, KeyError, IndexError, jsonpatch.JsonPatchException,
                jsonpatch.JsonPointerException):
            continue
    return doc if isinstance(doc, dict) else {}


def _walk(elements: Mapping[str, object], key: object, order: list[str], seen: set[str]) -> None:
    if not isinstance(key, str) or key in seen or key not in elements:
        return
    seen.add(key)
    order.append(key)
    element = elements[key]
    children = element.get("children") if isinstance(element, dict) else None
    for child in children if isinstance(children, list) else []:
        _walk(elements, child, order, seen)


def _line(element: object) -> str:
    if not isinstance(element, dict):
        return ""
    props = element.get("props")
    if not isinstance(props, dict):
        props = {}
    words = [word for name in TEXT_PROPS for word in _words(props.get(name))]
    kind = str(element.get("type") or "?")
    line = f"{kind}: {' · '.join(words)}" if words else kind
    return line[:MAX_LINE_CHARS]


def _words(value: object) -> list[str]:
    """The text in a prop: a string, a number, or the strings (or item labels) of a list."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list):
        return [word for item in value for word in _words(item.get("label") if isinstance(item, dict) else item)]
    return []
