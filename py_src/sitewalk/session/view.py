"""What the session shows: every method the session and its parts call on the screen.

`app.view.DomView` implements it in the browser; tests record the calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from sitewalk_shared.ui_spec.validate import Issue

from ..calls.words import ExpectedAnswer
from ..timeline import TimelineShown

__all__ = ["View"]


class View(Protocol):
    def status(self, text: str) -> None:
        """One line on how the inspection goes (thread, connection, an action's outcome)."""

    def agent_text(self, message_id: str, text: str) -> None:
        """The words of one agent message so far, in the transcript."""

    def user_text(self, message_id: str, text: str) -> None:
        """The inspector's own words (a message sent, or one read back when an inspection reopens)."""

    def tool_call(self, call_id: str, name: str, state: str, detail: str = "",
                  answer: ExpectedAnswer | None = None) -> None:
        """Where a tool call is in its lifecycle (`calls.lifecycle.CallStatus`), with an error's detail; an
        expected typed answer (`calls.words`) is read in its words instead of the state's label."""

    def tool_args(self, call_id: str, text: str, replace: bool = False) -> None:
        """A call's arguments as they stream: `text` is the new fragment, appended to what is shown;
        with `replace` it is the whole text so far (a snapshot), shown instead."""

    def screen(self, spec: Mapping[str, object]) -> None:
        """The generative-UI screen to render now."""

    def screen_issues(self, issues: list[Issue], fallback: list[str]) -> None:
        """A screen failed validation: its issues and its text as plain lines; the last good screen stays."""

    def action_result(self, element_id: str, status: str) -> None:
        """The agent's answer to a ConfirmButton (done, replayed, refused; waiting while offline), on it."""

    def clear_live(self) -> None:
        """Empty the transcript, the tool calls and the screen (with its issues): they are drawn again from
        a thread's state (a time-travel run starts from an earlier step). The timeline stays."""

    def timeline(self, shown: TimelineShown) -> None:
        """The thread's timeline: one branch's loaded steps (newest first), the branches, a notice."""
