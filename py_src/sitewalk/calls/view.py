"""What rendering may read of the tool-call pipeline: read-only views of a call and of a message's text.

The pipeline (`calls.run_stream`, `calls.assembly`) keeps its own mutable state; the screen feed, the call
board and the templates get these frozen values, made once per change taken (once a frame while a stream
is coming), so nothing that renders can reach into the assembly or change it. `delta` is what the change
added since the view last took one (the whole text when `replaced`), so a view appends it instead of
writing the whole text again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .lifecycle import LABELS, CallStatus

__all__ = ["CallView", "TextView", "label"]


@dataclass(frozen=True, slots=True)
class CallView:
    """One tool call as a change left it."""

    call_id: str
    name: str | None
    status: CallStatus
    namespace: tuple[str, ...] = ()
    message_id: str = ""
    index: int = 0  # the call's place in its message
    delta: str = ""  # the arguments' text added (the whole text when `replaced`)
    replaced: bool = False
    args: Mapping[str, object] | None = None  # set once the message ended and the text parsed to an object
    error: str | None = None  # why the finished arguments are unusable

    @property
    def finished(self) -> bool:
        """The message ended: the arguments are whole (ready, or failed with `error`)."""
        return self.status is not CallStatus.COLLECTING_ARGS


@dataclass(frozen=True, slots=True)
class TextView:
    """One agent message's words: the text added by this change, and whether the message ended."""

    message_id: str
    delta: str = ""
    done: bool = False


def label(status: object) -> object:
    """A call state's human label ("arguments ready, not run"); anything else unchanged."""
    if isinstance(status, str) and status in CallStatus.__members__.values():
        return LABELS[CallStatus(status)]
    return status
