"""The page's own timings, taken in JavaScript before Python ran, as Unix epoch milliseconds.

web/boot.js marks its phases on `window.__sitewalkBoot` and web/first_press.js the Start pressed before
Python was ready on `window.sitewalkFirstPress` (`pressedAt`, `takenAt`), all as `performance.now()`
(milliseconds since the page's time origin); `performance.timeOrigin` turns them into wall-clock time, the
time base of every span. Read only by device tracing (`sitewalk.tracing.boot`), when it is on.
"""

from __future__ import annotations

import js

from .values import or_none

__all__ = ["boot_marks"]

_BOOT = ("start", "pyodideReady", "packagesLoaded", "configRead", "appStarting", "appStarted")
_PRESS = ("pressedAt", "takenAt")


def boot_marks() -> dict[str, float]:
    """Each mark the page has taken so far, by name, in epoch milliseconds (marks not taken are absent)."""
    origin = float(js.performance.timeOrigin)
    marks: dict[str, float] = {}
    for holder, names in ((getattr(js.window, "__sitewalkBoot", None), _BOOT),
                          (getattr(js.window, "sitewalkFirstPress", None), _PRESS)):
        holder = or_none(holder)
        for name in names if holder is not None else ():
            value = or_none(getattr(holder, name, None))
            if isinstance(value, (int, float)):
                marks[name] = origin + float(value)
    return marks
