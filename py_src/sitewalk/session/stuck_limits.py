"""How long a silent run or stream may last: configuration, checked.

`stuckSeconds` in config.json, or `?stuck=N` in the page's URL (which wins, as `?stall=` does for
`streamStallSeconds`): the silence after an interruption before the server is asked about the run.
Stuck is said when its checkpoint has not moved half that time later (the defaults: 10 s, then 5 s).
`streamStallSeconds` in config.json, or `?stall=N` (boot.js hands both over as given): how long a stream
that heartbeated may stay silent before it counts as dropped (default 20 s).
A value that is not a number of seconds in range (`sitewalk.base.seconds`, the rule the build checks
too; `?stall=soon` as much as `?stall=-3`) is not guessed at: the inspector (status line) and the
console are told, and the next source is used (the config file, then the default).
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


def stall_limit(url_value: str | None, config_value: object) -> tuple[float, list[str]]:
    """The stream stall limit from `?stall=` (the URL's text, None when absent) or else config.json's
    `streamStallSeconds` (None when absent), and what was wrong with either (said with the value used)."""
    found, problems = _first_good(((url_value, "?stall="), (config_value, "streamStallSeconds in config.json")),
                                  STALL_SECONDS)
    return (STALL_SECONDS if found is None else found), problems


def stuck_policy(url_value: str | None, config_value: object) -> tuple[StuckPolicy, list[str]]:
    """The policy from `?stuck=` (the URL's text, None when absent) or else config.json's `stuckSeconds`
    (None when absent), and what was wrong with either (each problem says which value is used instead)."""
    found, problems = _first_good(((url_value, "?stuck="), (config_value, "stuckSeconds in config.json")),
                                  STUCK_SECONDS)
    return (StuckPolicy() if found is None else _after(found)), problems


def _first_good(sources: tuple[tuple[Any, str], ...], default: float) -> tuple[float | None, list[str]]:
    """The first of the (value, where) sources that is set and good (None when none is), and a problem for
    each bad one, ending with what is used instead: the value found, else the default."""
    problems: list[str] = []
    for value, where in sources:
        if value is None or value == "":
            continue
        try:
            found = seconds(value, where)
        except ValueError as error:
            problems.append(str(error))
            continue
        return found, [f"{p}; {found:g} s is used" for p in problems]
    return None, [f"{p}; the default {default:g} s is used" for p in problems]


def _after(quiet: float) -> StuckPolicy:
    """Ask after `quiet` s of silence, stuck when nothing moved half that later; look at least 4 times per wait."""
    return StuckPolicy(quiet_s=quiet, confirm_s=quiet / 2, tick_s=min(StuckPolicy().tick_s, quiet / 4))
