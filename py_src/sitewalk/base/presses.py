"""Whether a pointer's release is a press of the control it went down on, when the browser will not say so.

A browser sends `click` to what is under the pointer at its release: if the pressed control moved away in
between (a streamed transcript or a list above it grew), the click goes to an ancestor of both, and if the
control's node was drawn anew, Chromium sends no click at all. On a slow phone, or with a mouse held for a
moment, a press while a run streams or ends was then a button that did nothing (issue 29, the lost tap).
`bridge.presses` asks this for each release; pure, so it is tested under CPython.
"""

from __future__ import annotations

import math

__all__ = ["SLOP_PX", "press_is_lost"]

SLOP_PX = 10.0  # a pointer that moved further meant to scroll, or to slide off the control (a cancel)


def press_is_lost(still_on_page: bool, released_on_it: bool, moved: tuple[float, float]) -> bool:
    """True when the release ends a press the browser will not deliver to the control pressed: the pointer
    stayed where it went down (`moved`: dx, dy in CSS px), but the control is no longer on the page (drawn
    anew) or no longer under the pointer (moved). A control still under the pointer gets its click as usual."""
    if still_on_page and released_on_it:
        return False
    return math.hypot(*moved) <= SLOP_PX
