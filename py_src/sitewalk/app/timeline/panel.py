"""The timeline on the phone: steps of one branch, the branch switcher, step details, replay and fork.

`TimelinePanel` answers the clicks (one delegated listener on the timeline's panel): open a step
read-only (its state read from the server, its screen re-rendered inert), switch branch (that branch's
own screen shows with its head), load older steps, and replay or edit-and-resend, each after a restore
preview the inspector confirms. Older steps also load as the inspector scrolls: a sentinel after the list
asks for the next page when it comes into view (the Older steps button stays, for keyboards and screen
readers). The list itself is `StepList`'s (steps.py); a value or a decision changed at a step, the edit
views' (step_edit.py, decision_edit.py). The panel makes them and owns them: the timeline keeps no state
outside this object.
A request the server refuses for want of a sign-in (401: the token was revoked or expired) says "sign in
to ..." in the timeline's notice, never a generic error; a confirmed replay or edit comes back as its
preview with what was typed, to confirm again once signed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...base.server_errors import StreamError, Unauthorized
from ...bridge import dom
from ...timeline import RestorePreview, TimelineError, TimelineShown, UnknownCheckpoint
from ...ui.templating import render_template
from .controls import Work
from .decision_edit import DECISION_EDITS, DecisionEditView
from .details import details_html, nested_details_html
from .step_edit import STEP_EDITS, StepEditView
from .steps import SENTINEL, StepList

if TYPE_CHECKING:
    from ...bridge.visibility import Sentinel
    from ...session import InspectionSession
    from ...session.travel import TimeTravel

__all__ = ["TimelinePanel"]

PANEL = "sw-timeline-panel"
SIGN_IN_TO_TRAVEL = "sign in to go on: the agent server no longer accepts your sign-in; nothing was changed"
SIGN_IN_TO_CONFIRM = "not sent: sign in, then confirm again (what you typed is kept)"
CONTROL = "[data-sw-travel]"  # the panel's buttons: what each does is in its data attributes


@dataclass(frozen=True)
class Offered:
    """A restore preview as shown: offered again, with what was typed, when the server refused its work (401)."""

    preview: RestorePreview
    heading: str
    confirm: str
    work: Work
    edit: str | None
    field: dict[str, str]  # edit_kind, edit_error


class TimelinePanel:
    """The timeline's panel for the inspection on screen (`session`); a `TimelineControls` for its edit views."""

    def __init__(self, session: Callable[[], InspectionSession | None]) -> None:
        self.session = session
        self.steps = StepList()
        self.step_edits = StepEditView(self)
        self.decision_edits = DecisionEditView()
        self.pending: Work | None = None  # what Confirm does (a replay or a fork), given the edit
        self.offered: Offered | None = None  # the preview shown last: offered again when a 401 refused it
        self.sentinel: Sentinel | None = None

    def draw(self, shown: TimelineShown) -> None:
        """What the session's timeline shows, drawn (the `DomView` hands it here)."""
        self.steps.draw(shown)

    def attach(self) -> None:
        from ...bridge.presses import on_press  # the browser's event wiring, only once the panel is on the page
        from ...bridge.visibility import Sentinel

        on_press(PANEL, CONTROL, self.click)  # a press the list's draws or the panels above move is kept too
        self.sentinel = Sentinel(SENTINEL, self.scrolled_to_end)

    async def scrolled_to_end(self) -> None:
        """The list's end came into view: the next older page, and again while the end stays in view."""
        travel = self.travel()
        if travel is None or travel.timeline.tree.exhausted:
            return
        loaded = len(travel.timeline.tree)
        await travel.timeline.older()
        if len(travel.timeline.tree) > loaded and self.sentinel is not None:
            self.sentinel.recheck()  # a failed or empty page is not asked again until the next scroll

    async def click(self, event: Any) -> None:
        button = dom.closest(event.target, CONTROL)
        if button is None:
            return
        what = dom.attribute(button, "data-sw-travel") or ""
        if what == "fold":  # only the list changes: nothing is read or run
            self.steps.toggle_fold(dom.attribute(button, "data-fold-id") or "")
            return
        travel = self.travel()
        if travel is None:
            return
        try:
            await self._do(travel, what, button)
        except TimelineError as error:
            dom.set_html("sw-restore", "")
            travel.timeline.notice(f"{error.code}: {error}")
        except Unauthorized:  # the sign-in form is up (the client's on_unauthorized)
            travel.timeline.notice(SIGN_IN_TO_TRAVEL)
        except StreamError:
            pass  # the run from here failed: the status line says so and why (session.status_report)

    async def _do(self, travel: TimeTravel, what: str, button: Any) -> None:
        checkpoint = dom.attribute(button, "data-checkpoint-id") or ""
        if what == "details":
            await self.open(travel, checkpoint)
        elif what == "branch":
            head = dom.attribute(button, "data-head")
            await travel.timeline.open_branch(None if dom.attribute(button, "data-live") == "1" else head)
            if head:
                await self.open(travel, head)
        elif what == "older":
            await travel.timeline.older()
        elif what == "replay":
            await self._ask(travel, checkpoint, "Replay from this step?", "Replay",
                            lambda _text: travel.replay(checkpoint), None)
        elif what == "edit":
            await self._edit(travel, checkpoint, dom.attribute(button, "data-message-id") or "")
        elif what in STEP_EDITS:  # the site walk's steps, and a device's answers (step_edit.py)
            await self.step_edits.start(travel, what, checkpoint)
        elif what in DECISION_EDITS:  # a review decision changed at a step (decision_edit.py)
            await self.decision_edits.start(travel, what, checkpoint, button)
        elif what == "confirm" and self.pending is not None:
            await self._confirm()
        elif what in ("cancel", "close"):
            self.pending = None
            dom.set_html("sw-restore" if what == "cancel" else "sw-step-details", "")

    async def _confirm(self) -> None:
        """Confirm pressed: the pending work runs with what was typed in the preview."""
        assert self.pending is not None  # _do checked
        work, self.pending = self.pending, None
        edited = dom.element("sw-edit-text")  # read before the preview (and its form) goes away
        text = str(edited.value) if edited is not None else ""
        dom.set_html("sw-restore", "")
        # the notice sits where the preview was: what comes of the press (waiting, refused) is said in view
        dom.bring_to_attention(dom.element("sw-timeline-notice"))
        offered = self.offered
        try:
            await work(text)
        except Unauthorized:
            if offered is not None:  # the same preview, what was typed in it, and why it is back
                self.reoffer(offered, text)
            raise

    async def open(self, travel: TimeTravel, checkpoint: str) -> None:
        """A step's details; a step no longer loaded (the list was drawn anew from its newest page since it
        was pressed) is paged back to, never ignored."""
        step = travel.timeline.tree.step(checkpoint)
        if step is None:
            await travel.load_to(checkpoint)
            step = travel.timeline.tree.step(checkpoint)
        if step is None:  # a site walk's step no longer loaded, or a stranger
            raise UnknownCheckpoint(checkpoint, travel.thread.id)
        if step.facts.namespace:  # a site-walk step: what it knew is its answers
            dom.set_html("sw-step-details", nested_details_html(step))
            return
        state = await travel.read_state(checkpoint)
        dom.set_html("sw-step-details", details_html(step, dict(state)))

    async def _edit(self, travel: TimeTravel, checkpoint: str, message_id: str) -> None:
        state = await travel.read_state(checkpoint)
        message = next((m for m in state["values"].get("messages") or [] if m.get("id") == message_id), None)
        text = str((message or {}).get("content") or "")
        await travel.load_to(checkpoint)  # its parent is where the edit forks from: a step no longer loaded is paged to

        async def fork(edited: str) -> None:
            await travel.edit_message(message_id, edited)

        parent = travel.timeline.tree.facts(checkpoint)
        await self._ask(travel, parent.parent_id if parent and parent.parent_id else checkpoint,
                        "Edit and resend this message?", "Send as a new branch", fork, text)

    async def _ask(self, travel: TimeTravel, checkpoint: str, heading: str, confirm: str,
                   work: Work, edit: str | None) -> None:
        self.show_preview(await travel.preview(checkpoint), heading, confirm, work, edit)

    def show_preview(self, preview: RestorePreview, heading: str, confirm: str, work: Work,
                     edit: str | None = None, **field: str) -> None:
        """The restore preview with the value to write (`edit`; `field`: edit_kind, edit_error); Confirm runs `work`."""
        self.pending = work
        self.offered = Offered(preview, heading, confirm, work, edit, field)
        dom.set_html("sw-restore", render_template("timeline_restore.j2", preview=preview, heading=heading,
                                                   confirm=confirm, edit=edit, **field))
        # Drawn above the timeline: a press on an old step far down the list would show it off screen (a phone).
        dom.bring_to_attention(dom.query(dom.element("sw-restore"), ".sw-restore-preview"))

    def reoffer(self, offered: Offered, text: str) -> None:
        """A preview whose confirmed work the server refused (401) shown again, with the text typed in it."""
        self.show_preview(offered.preview, offered.heading, offered.confirm, offered.work,
                          text if offered.edit is not None else None,
                          **{**offered.field, "edit_error": SIGN_IN_TO_CONFIRM})

    def travel(self) -> TimeTravel | None:
        """Replay and fork on the inspection on screen (None: none is open, or it has no thread yet)."""
        session = self.session()
        return session.time_travel() if session is not None else None
