"""JS values as Python sees them: `null` arrives as a `JsNull` object, not `None`; an object arrives
as a proxy whose attributes are the JS object's (`JsProxy`).

No `js` import here, so the check runs under CPython too.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["JsProxy", "is_none", "or_none"]

T = TypeVar("T")

JsProxy = Any
"""A JS object as Pyodide hands it to Python (`pyodide.ffi.JsProxy`): a DOM node, an event, a response.
Its attributes and methods are the JS object's, known only at run time, so it is typed dynamically, and
only here: the bridge's functions say `JsProxy` where they read or call such an object (and `object`
where they only pass one on), so every dynamic value of the browser seam is named by this one alias."""


def is_none(value: object) -> bool:
    """True for Python None, JS `undefined` (Pyodide maps it to None) and JS `null` (a JsNull)."""
    # By type name: pyodide.ffi.JsNull does not exist under CPython, and `null` is falsy but so is 0.
    return value is None or type(value).__name__ == "JsNull"


def or_none(value: T) -> T | None:
    """The value, or None when it is JS null/undefined."""
    return None if is_none(value) else value
