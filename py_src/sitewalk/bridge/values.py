"""JS values as Python sees them: `null` arrives as a `JsNull` object, not `None`.

No `js` import here, so the check runs under CPython too.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["is_none", "or_none"]

T = TypeVar("T")


def is_none(value: object) -> bool:
    """True for Python None, JS `undefined` (Pyodide maps it to None) and JS `null` (a JsNull)."""
    # By type name: pyodide.ffi.JsNull does not exist under CPython, and `null` is falsy but so is 0.
    return value is None or type(value).__name__ == "JsNull"


def or_none(value: T) -> T | None:
    """The value, or None when it is JS null/undefined."""
    return None if is_none(value) else value
