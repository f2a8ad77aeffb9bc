"""A number of seconds given as configuration, checked one way for whoever reads or writes it.

The app reads `stuckSeconds` and `streamStallSeconds` (config.json, or `?stuck=` / `?stall=` in the
page's URL; `sitewalk.session.stuck_limits`); the build writes them (`build.py build --stuck-seconds N
--stream-stall-seconds N`) and refuses what the app would refuse, so a site is never built with a value
it would not use. Pure, no Sitewalk or browser import: the build imports it under CPython.
"""

from __future__ import annotations

import math

__all__ = ["MAX_SECONDS", "MIN_SECONDS", "seconds"]

MIN_SECONDS, MAX_SECONDS = 1.0, 3600.0


def seconds(value: object, where: str) -> float:
    """`value` (a number, or the text of one) as seconds; ValueError naming `where` when it is not one in range."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or not MIN_SECONDS <= number <= MAX_SECONDS:
        raise ValueError(f"{where} is {value!r}: it must be a number of seconds from {MIN_SECONDS:g} "
                         f"to {MAX_SECONDS:g}")
    return number
