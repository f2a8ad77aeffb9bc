"""The shape of JSON data: its keys and value types, recursively, to compare a fresh recording with a stored one.

`shape(value)` keeps what a client's code depends on and drops what changes from run to run: the values
themselves, the length of lists (their items' shapes are merged into one), and keys that are ids (a resume
map keyed by interrupt id, a namespace with a task id in it). `differences(stored, live)` names every path
where two shapes differ: a key only one side has, or another set of value types.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ID", "differences", "merge", "shape"]

ID = "<id>"
# uuids (with or without dashes), hex digests (alone or ending an element id: `close-wo-d802d28916`),
# and the ids tool calls carry
_ID_PART = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|[0-9a-f]{24,}"
                      r"|(?<=-)[0-9a-f]{8,}\b|call_\w+")

Shape = dict[str, Any]  # {"types": [kind, ...], "keys": {key: Shape}, "items": Shape}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"  # JSON has one number type; 1 and 1.0 are the same to a client
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not JSON: {type(value).__name__}")


def id_free(key: str) -> str:
    """The key with every id in it replaced by <id>."""
    return _ID_PART.sub(ID, key)


def shape(value: Any) -> Shape:
    kind = _kind(value)
    out: Shape = {"types": [kind]}
    if kind == "object":
        keys: dict[str, Shape] = {}
        for key, item in value.items():
            name = id_free(key)
            keys[name] = merge(keys[name], shape(item)) if name in keys else shape(item)
        out["keys"] = keys
    elif kind == "array" and value:
        items = [shape(item) for item in value]
        merged = items[0]
        for item in items[1:]:
            merged = merge(merged, item)
        out["items"] = merged
    return out


def merge(a: Shape, b: Shape) -> Shape:
    """One shape for values of either shape (the union of their types and keys)."""
    out: Shape = {"types": sorted(set(a["types"]) | set(b["types"]))}
    if "keys" in a or "keys" in b:
        left, right = a.get("keys", {}), b.get("keys", {})
        out["keys"] = {k: merge(left[k], right[k]) if k in left and k in right else left.get(k) or right[k]
                       for k in {**left, **right}}
    if "items" in a or "items" in b:
        out["items"] = merge(a["items"], b["items"]) if "items" in a and "items" in b else a.get("items") or b["items"]
    return out


def differences(stored: Shape, live: Shape, path: str = "$") -> list[str]:
    """Every path where the shapes differ, as `path: what`; empty when they match."""
    found: list[str] = []
    if stored["types"] != live["types"]:
        found.append(f"{path}: recorded {'|'.join(stored['types'])}, live {'|'.join(live['types'])}")
    left, right = stored.get("keys", {}), live.get("keys", {})
    for key in sorted(left.keys() - right.keys()):
        found.append(f"{path}.{key}: recorded, gone from the live server")
    for key in sorted(right.keys() - left.keys()):
        found.append(f"{path}.{key}: new on the live server")
    for key in sorted(left.keys() & right.keys()):
        found += differences(left[key], right[key], f"{path}.{key}")
    if "items" in stored and "items" in live:
        found += differences(stored["items"], live["items"], f"{path}[]")
    return found
