"""How long a silent run or stream may last: configuration, checked.

`stuckSeconds` in config.json, or `?stuck=N` in the page's URL (which wins, as `?stall=` does for
`streamStallSeconds`): the silence after an interruption before the server is asked about the run.
Stuck is said when its checkpoint has not moved half that time later (the defaults: 10 s, then 5 s).
`streamStallSeconds` (boot.js hands over `?stall=` or config.json's, as a number): how long a stream
that heartbeated may stay silent before it counts as dropped (default 20 s).
A value that is not a number of seconds in range (`sitewalk.base.seconds`, the rule the build checks
too) is not guessed at: the inspector (status line) and the console are told, and the next source is
used (the config file, then the default).
"""

from __future__ import annotations

from typing import Any

from ..agentserver.stall import STALL_SECONDS
from ..base.seconds import MAX_SECONDS, MIN_SECONDS, seconds
from .progress import StuckPolicy

__all__ = ["MAX_STUCK_SECONDS", "MIN_STUCK_SECONDS", "STUCK_SECONDS", "stall_limit", "stuck_policy",
           "stuck_seconds"]

STUCK_SECONDS = StuckPolicy().quiet_s
MIN_STUCK_SECONDS, MAX_STUCK_SECONDS = MIN_SECONDS, MAX_SECONDS
stuck_seconds = seconds  # the one rule, under the name this module's callers know


def stall_limit(value: Any) -> tuple[float, list[str]]:
    """The stream stall limit from `streamStallSeconds` as boot.js passes it (None when unset), and what was
    wrong with it (said with the default used instead)."""
    if value is None or value == "":
        return STALL_SECONDS, []
    try:
        return seconds(value, "the stream stall limit (?stall= or streamStallSeconds)"), []
    except ValueError as error:
        return STALL_SECONDS, [f"{error}; the default {STALL_SECONDS:g} s is used"]


def stuck_policy(url_value: str | None, config_value: Any) -> tuple[StuckPolicy, list[str]]:
    """The policy from `?stuck=` (the URL's text, None when absent) or else config.json's `stuckSeconds`
    (None when absent), and what was wrong with either (each problem says which value is used instead)."""
    problems: list[str] = []
    for value, where in ((url_value, "?stuck="), (config_value, "stuckSeconds in config.json")):
        if value is None or value == "":
            continue
        try:
            quiet = seconds(value, where)
        except ValueError as error:
            problems.append(str(error))
            continue
        return _after(quiet), [f"{p}; {quiet:g} s is used" for p in problems]
    return StuckPolicy(), [f"{p}; the default {STUCK_SECONDS:g} s is used" for p in problems]


def _after(quiet: float) -> StuckPolicy:
    """Ask after `quiet` s of silence, stuck when nothing moved half that later; look at least 4 times per wait."""
    return StuckPolicy(quiet_s=quiet, confirm_s=quiet / 2, tick_s=min(StuckPolicy().tick_s, quiet / 4))
