"""The inspection whose run the page is in: Start disabled and Cancel shown while it runs, Cancel cancelling it.

One at a time: the app opens no other inspection while one runs (`session` is not None). A run that ends for
want of a sign-in keeps everything on the page; a cancelled one is not reopened after a reload.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ..base.server_errors import Unauthorized
from ..bridge import dom, tasks
from .kept_thread import forget_thread
from .start_form import FORM as START_FORM
from .start_form import fold_start_form, unfold_start_form
from .status_line import StatusLine, settle

if TYPE_CHECKING:
    from ..session import InspectionSession

__all__ = ["RunningInspection"]


class RunningInspection:
    def __init__(self, status_line: StatusLine) -> None:
        self._status_line = status_line  # told which inspection runs (the id it was opened under)
        self.session: InspectionSession | None = None  # the session the Cancel button cancels

    async def run(self, inspection_id: str, session: InspectionSession, work: Awaitable[object]) -> None:
        """Run a session's work with Start disabled and Cancel shown; a cancelled run says so."""
        cancel = dom.element("sw-cancel")
        if cancel is None:
            cancel = self._cancel_button()
        self.session = session
        fold_start_form(inspection_id)
        self._status_line.inspection_id = inspection_id
        dom.element("sw-start").disabled = True
        cancel.hidden = False
        try:
            try:
                await settle(work)
                if not session.cancelled:
                    await session.show_reviews()  # what the thread waits on for review, read from the server
                    await session.show_questions()  # and the questions it asks the inspector (the site walk)
            except Unauthorized:  # the sign-in form is up (the client's on_unauthorized); the page keeps everything
                unfold_start_form()
                dom.show_status(f"Inspection {inspection_id}: sign in to carry on; nothing is lost.", error=True)
                return
            if session.cancelled:
                forget_thread()  # not rejoined after a reload
                dom.show_status(f"Inspection {inspection_id}: cancelled")
            # else the status line already says where it is: done, waiting for what, or failed and why
        finally:
            self.session = None
            cancel.hidden = True
            dom.element("sw-start").disabled = False

    async def cancel(self, _event: object = None) -> None:
        if self.session is not None:
            await self.session.cancel()

    def _cancel_button(self) -> Any:
        """The Cancel button, made at the first run, after the foldable form: in sight when the form is folded."""
        cancel = dom.create("button")
        cancel.id, cancel.type, cancel.className = "sw-cancel", "button", "sw-button-secondary"
        cancel.textContent = "Cancel"
        form = dom.element(START_FORM)
        form.parentNode.insertBefore(cancel, form.nextSibling)
        tasks.on("sw-cancel", "click", self.cancel)
        return cancel
