"""The status line's word on where the open inspection is (`sitewalk.inspection_status`'s words, the same
as the list's): after each run (told by the session), and while a device tool's dialog asks the inspector.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from ..base.server_errors import StreamError
from ..bridge import dom
from ..inspection_status import ASKING, RUNNING, InspectionStatus, Phase

__all__ = ["StatusLine", "settle"]


async def settle(work: Awaitable[Any]) -> Any:
    """Await a session's work (None when its run failed). A run the server ended in error is no error of the
    page: the status line already says it failed and why (`session.status_report`), so it is not raised on
    to the page's generic failure report ("Error: StreamError ..."), which would say less."""
    try:
        return await work
    except StreamError:
        return None


class StatusLine:
    def __init__(self) -> None:
        self.inspection_id = ""  # the inspection opened or started on this page (as the list names it)

    def show(self, inspection_id: str, status: InspectionStatus) -> None:
        """`Inspection <id>: <words>`; a failure shown as an error. The id is the one the inspection was opened
        under (a fork may have changed the one in the thread's values); the thread's is used when none is."""
        named = self.inspection_id or inspection_id
        dom.show_status(f"Inspection {named}: {status.words}" if named else status.words,
                        error=status.phase is Phase.failed)

    def asking(self, open_: bool) -> None:
        """A device tool's dialog opened (waiting for the inspector's answer) or closed (the run goes on)."""
        self.show("", ASKING if open_ else RUNNING)
