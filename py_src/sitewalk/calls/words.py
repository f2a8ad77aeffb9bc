"""A tool call in words an inspector reads: its title, and an expected typed answer in words (pure).

One place per tool holds its title: a headless tool's contract (`ToolContract.title`), a field action's
`ACTION_TITLES` (the review card's title too), and `OTHER_TITLES` below for the few tools that have
neither (the screen, the site walk). The code name stays on the call's row (`data-tool`, and as secondary
text), so nothing is hidden from whoever debugs it.

A typed error is not always a failure for the inspector: `read_local_draft` answering `not_found` is the
ordinary state of a device with no draft (the agent goes on with `start_blank_draft`). The contract lists
such answers (`ToolContract.expected`); `expected_answer` gives their words, and only those: every other
error of the tool, and the same code from another tool, still reads as failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitewalk_shared.contracts.field_actions import ACTION_TITLES
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS
from sitewalk_shared.ui_spec.model import RENDER_UI_TOOL

__all__ = ["OTHER_TITLES", "ExpectedAnswer", "call_title", "expected_answer", "has_title"]

OTHER_TITLES: dict[str, str] = {RENDER_UI_TOOL: "Draw a screen", "walk_site": "Walk the site with you"}
"""Tools with neither a headless contract nor a field action's title."""


@dataclass(frozen=True, slots=True)
class ExpectedAnswer:
    """A typed error that is an ordinary answer: its code (kept on the row) and what the inspector reads."""

    code: str
    words: str


def _titled(name: str) -> str | None:
    contract = TOOL_CONTRACTS.get(name)
    return (contract.title if contract else None) or ACTION_TITLES.get(name) or OTHER_TITLES.get(name)


def has_title(name: str) -> bool:
    """Whether the tool has a title of its own (not its code name made readable)."""
    return _titled(name) is not None


def call_title(name: str) -> str:
    """The call as a person names it ("Read the saved draft"); a tool without a title, its code name made
    readable ("Lookup site")."""
    return _titled(name) or name.replace("_", " ").strip().capitalize() or "?"


def expected_answer(name: str, code: object) -> ExpectedAnswer | None:
    """The words of `code` when it is an ordinary answer of tool `name`, else None (a real failure)."""
    contract = TOOL_CONTRACTS.get(name)
    words = contract.expected.get(code) if contract is not None and isinstance(code, str) else None
    return ExpectedAnswer(code, words) if words and isinstance(code, str) else None
