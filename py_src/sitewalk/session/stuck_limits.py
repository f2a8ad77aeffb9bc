"""How long a silent run may last before it is called stuck: configuration, checked.

`stuckSeconds` in config.json, or `?stuck=N` in the page's URL (which wins, as `?stall=` does for
`streamStallSeconds`): the silence after an interruption before the server is asked about the run.
Stuck is said when its checkpoint has not moved half that time later (the defaults: 10 s, then 5 s).
A value that is not a number of seconds in range is not guessed at: the inspector (status line) and
the console are told, and the next source is used (the config file, then the default).
"""

from __future__ import annotations

import math
from typing import Any

from .progress import StuckPolicy

__all__ = ["MAX_STUCK_SECONDS", "MIN_STUCK_SECONDS", "STUCK_SECONDS", "stuck_policy", "stuck_seconds"]

STUCK_SECONDS = StuckPolicy().quiet_s
MIN_STUCK_SECONDS, MAX_STUCK_SECONDS = 1.0, 3600.0


def stuck_seconds(value: Any, where: str) -> float:
    """`value` (a number, or the text of one) as seconds; ValueError naming `where` when it is not one in range."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or not MIN_STUCK_SECONDS <= number <= MAX_STUCK_SECONDS:
        raise ValueError(f"{where} is {value!r}: it must be a number of seconds from {MIN_STUCK_SECONDS:g} "
                         f"to {MAX_STUCK_SECONDS:g}")
    return number


def stuck_policy(url_value: str | None, config_value: Any) -> tuple[StuckPolicy, list[str]]:
    """The policy from `?stuck=` (the URL's text, None when absent) or else config.json's `stuckSeconds`
    (None when absent), and what was wrong with either (each problem says which value is used instead)."""
    problems: list[str] = []
    for value, where in ((url_value, "?stuck="), (config_value, "stuckSeconds in config.json")):
        if value is None or value == "":
            continue
        try:
            seconds = stuck_seconds(value, where)
        except ValueError as error:
            problems.append(str(error))
            continue
        return _after(seconds), [f"{p}; {seconds:g} s is used" for p in problems]
    return StuckPolicy(), [f"{p}; the default {STUCK_SECONDS:g} s is used" for p in problems]


def _after(seconds: float) -> StuckPolicy:
    """Ask after `seconds` of silence, stuck when nothing moved half that later; look at least 4 times per wait."""
    return StuckPolicy(quiet_s=seconds, confirm_s=seconds / 2, tick_s=min(StuckPolicy().tick_s, seconds / 4))
