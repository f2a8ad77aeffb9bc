"""What a timeline edit view asks of the panel that made it: a restore preview shown for the inspector to
confirm. A Protocol, so a view never imports the panel (the panel imports the views). The work itself
(load, replay, fork, a changed value) the views ask of the session's `TimeTravel`, handed to them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...timeline import RestorePreview

__all__ = ["TimelineControls", "Work"]

Work = Callable[[str], Awaitable[object]]  # what Confirm runs, given what the inspector typed in the preview


class TimelineControls(Protocol):
    def show_preview(self, preview: RestorePreview, heading: str, confirm: str, work: Work,
                     edit: str | None = None, **field: str) -> None:
        """The restore preview with the value to write (`edit`; `field`: edit_kind, edit_error); Confirm
        runs `work` with what the inspector typed."""
        ...
