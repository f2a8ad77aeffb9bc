"""The timeline on the phone: steps of one branch, the branch switcher, step details, replay and fork.

`draw` renders what `session.history.TimelineFeed` shows. `TimelineControls` answers the clicks (one
delegated listener on the timeline's panel): open a step read-only (its state read from the server,
its screen re-rendered inert), switch branch (that branch's own screen shows with its head), load
older steps, and replay or edit-and-resend, each after a restore preview the inspector confirms.
Older steps also load as the inspector scrolls: a sentinel after the list asks for the next page when
it comes into view (the Older steps button stays, for keyboards and screen readers). A loaded page only
adds its rows under the drawn ones (`timeline.drawing.plan_draw`): the rows on the page stay the same
nodes, so the scroll position, an open element and the focus stay where they were. A turn's checks are
one row ("3 checks", `timeline.folding`); pressing it draws its steps under it (and hides them again),
each with its details and Replay from here; a fold stays open while the list is drawn again.
A request the server refuses for want of a sign-in (401: the token was revoked or expired) says "sign in
to ..." in the timeline's notice, never a generic error; a confirmed replay or edit comes back as its
preview with what was typed, to confirm again once signed in.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sitewalk_shared.ui_spec.validate import validate_spec

from ..base.server_errors import StreamError, Unauthorized
from ..base.trusted import TemplateHtml
from ..bridge import dom
from ..timeline import (
    Append,
    Fold,
    Redraw,
    RestorePreview,
    Row,
    Step,
    TimelineError,
    TimelineShown,
    UnknownCheckpoint,
    plan_draw,
)
from ..ui.render import render_spec, render_template
from .timeline_edit import EDITS, nested_details_html, start_edit

if TYPE_CHECKING:
    from ..session import InspectionSession
    from ..session.travel import TimeTravel

__all__ = ["TimelineControls", "draw"]

PANEL = "sw-timeline-panel"
SIGN_IN_TO_TRAVEL = "sign in to go on: the agent server no longer accepts your sign-in; nothing was changed"
SIGN_IN_TO_CONFIRM = "not sent: sign in, then confirm again (what you typed is kept)"
SENTINEL = "sw-timeline-sentinel"
CONTROL = "[data-sw-travel]"  # the panel's buttons: what each does is in its data attributes


_drawn: list[TimelineShown] = []  # what the list shows now: another thread's open details and preview are
# cleared, and a loaded page appends to it
_opened: set[str] = set()  # the folds of checks the inspector opened (their ids), on the thread drawn


def draw(shown: TimelineShown) -> None:
    last = _drawn[0] if _drawn else None
    if last is None or last.thread_id != shown.thread_id:
        dom.set_html("sw-step-details", "")
        dom.set_html("sw-restore", "")
        _opened.clear()
    rows = dom.element("sw-timeline")
    if last is not None and rows.childElementCount != len(last.rows):
        last = None  # the list was emptied (another inspection opened) or changed under us
    plan = plan_draw(last, shown)
    if isinstance(plan, Append) and not _apply(rows, plan):
        plan = Redraw("a drawn row is missing")
    if isinstance(plan, Redraw):
        dom.set_html(rows, _rows_html(shown.rows))
    rows.dataset.draw = "redraw" if isinstance(plan, Redraw) else "append"  # what the last draw did
    _drawn[:] = [shown]
    dom.set_html("sw-branches", render_template("timeline_branches.j2", shown=shown))
    dom.element("sw-timeline-notice").textContent = shown.notice
    dom.element("sw-timeline-older").hidden = not shown.more
    dom.element(SENTINEL).hidden = not shown.more  # hidden: never in view, so nothing more is asked


def _rows_html(rows: tuple[Row, ...] | list[Row]) -> TemplateHtml:
    return render_template("timeline.j2", rows=rows, opened=_opened)


def _row_node(rows: Any, row: Row) -> Any:
    """The drawn list's own node for this row id, or None: a step's, or a fold's (keyed by its newest step, so a
    step drawn alone that a loaded page makes the newest of a fold is found, and drawn again as the fold)."""
    key = dom.css_escape(row.id)
    return dom.query(rows, f':scope > li[data-checkpoint-id="{key}"], :scope > li[data-fold-id="{key}"]')


def _apply(rows: Any, plan: Append) -> bool:
    """Draw the changed rows again in their places, then add the new ones at the end (False: a row is missing)."""
    for row in plan.changed:
        node = _row_node(rows, row)
        if node is None:
            return False
        dom.replace_html(node, _rows_html([row]))
    if plan.rows:
        dom.insert_html(rows, "beforeend", _rows_html(plan.rows))
    return True


def toggle_fold(fold_id: str) -> None:
    """Open a fold of checks (its steps drawn under it) or close it; the focus stays on its button."""
    shown = _drawn[0] if _drawn else None
    fold = next((r for r in shown.rows if isinstance(r, Fold) and r.id == fold_id), None) if shown else None
    node = _row_node(dom.element("sw-timeline"), fold) if fold is not None else None
    if fold is None or node is None:
        return
    _opened.symmetric_difference_update({fold_id})
    dom.replace_html(node, _rows_html([fold]))
    again = _row_node(dom.element("sw-timeline"), fold)
    button = dom.query(again, ":scope > .sw-fold-toggle") if again is not None else None
    if button is not None:
        button.focus()


def _who(message: dict[str, Any]) -> str:
    return {"human": "You:", "ai": "Agent:", "tool": f"{message.get('name') or 'tool'} →"}.get(
        str(message.get("type")), f"{message.get('type')}:")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content)
    calls = ", ".join(str(c.get("name")) for c in message.get("tool_calls") or [])
    return (text[:400] + ("…" if len(text) > 400 else "")) + (f" [calls {calls}]" if calls else "")


def details_html(step: Step, state: dict[str, Any]) -> TemplateHtml:
    """A step, read-only: what the agent knew (messages, that moment's screen), what came next, who and when."""
    values = state.get("values") or {}
    messages = [{"type": m.get("type"), "who": _who(m), "text": _text(m)} for m in values.get("messages") or []]
    spec = values.get("ui_spec")
    screen = ""
    if isinstance(spec, dict) and spec.get("root"):
        bare = {"root": spec["root"], "elements": spec.get("elements")}  # without the server's identity
        screen = "" if validate_spec(bare) else render_spec(bare)
    interrupts = [f"{i.kind}: {i.tool_name or ''} {i.tool_call_id}".strip() for i in step.facts.interrupts]
    return render_template("timeline_step.j2", step=step, messages=messages, screen_html=screen,
                           revision=step.facts.spec_revision, next=list(state.get("next") or []),
                           interrupts=interrupts)


class TimelineControls:
    def __init__(self, session: Callable[[], InspectionSession | None]) -> None:
        self.session = session
        self.pending: Callable[[str], Any] | None = None  # what Confirm does (a replay or a fork), given the edit
        self.offered: tuple[Any, ...] | None = None  # the preview shown last: offered again when a 401 refused it
        self.sentinel: Any = None

    def attach(self) -> None:
        from ..bridge.presses import on_press  # the browser's event wiring, only once the panel is on the page
        from ..bridge.visibility import Sentinel

        on_press(PANEL, CONTROL, self.click)  # a press the list's draws or the panels above move is kept too
        self.sentinel = Sentinel(SENTINEL, self.scrolled_to_end)

    async def scrolled_to_end(self) -> None:
        """The list's end came into view: the next older page, and again while the end stays in view."""
        travel = self._travel()
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
            toggle_fold(dom.attribute(button, "data-fold-id") or "")
            return
        travel = self._travel()
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
        elif what in EDITS:  # the site walk's steps, and a device's answers (app/timeline_edit.py)
            await start_edit(self, travel, what, checkpoint, button)
        elif what == "confirm" and self.pending is not None:
            work, self.pending = self.pending, None
            edited = dom.element("sw-edit-text")  # read before the preview (and its form) goes away
            text = str(edited.value) if edited is not None else ""
            dom.set_html("sw-restore", "")
            offered = self.offered
            try:
                await work(text)
            except Unauthorized:
                if offered is not None:  # the same preview, what was typed in it, and why it is back
                    self.reoffer(offered, text)
                raise
        elif what in ("cancel", "close"):
            self.pending = None
            dom.set_html("sw-restore" if what == "cancel" else "sw-step-details", "")

    async def open(self, travel: TimeTravel, checkpoint: str) -> None:
        """A step's details; a step no longer loaded (the list was drawn anew from its newest page since it
        was pressed) is paged back to, never ignored."""
        step = travel.timeline.tree.step(checkpoint)
        if step is None:
            await travel.load_to(checkpoint)
            step = travel.timeline.tree.step(checkpoint)
        if step is None:  # a site walk's step no longer loaded, or a stranger
            raise UnknownCheckpoint(checkpoint, travel.thread.id)
        if step.facts.namespace:  # a site-walk step: what it knew is its answers (app/timeline_edit.py)
            dom.set_html("sw-step-details", nested_details_html(step))
            return
        state = await travel.client.threads.get_state(travel.thread.id, checkpoint)
        dom.set_html("sw-step-details", details_html(step, dict(state)))

    async def _edit(self, travel: TimeTravel, checkpoint: str, message_id: str) -> None:
        state = await travel.client.threads.get_state(travel.thread.id, checkpoint)
        message = next((m for m in state["values"].get("messages") or [] if m.get("id") == message_id), None)
        text = str((message or {}).get("content") or "")
        await travel.load_to(checkpoint)  # its parent is where the edit forks from: a step no longer loaded is paged to

        async def fork(edited: str) -> None:
            await travel.edit_message(message_id, edited)

        parent = travel.timeline.tree.facts(checkpoint)
        await self._ask(travel, parent.parent_id if parent and parent.parent_id else checkpoint,
                        "Edit and resend this message?", "Send as a new branch", fork, text)

    async def _ask(self, travel: TimeTravel, checkpoint: str, heading: str, confirm: str,
                   work: Callable[[str], Any], edit: str | None) -> None:
        self.show_preview(await travel.preview(checkpoint), heading, confirm, work, edit)

    def show_preview(self, preview: RestorePreview, heading: str, confirm: str, work: Callable[[str], Any],
                     edit: str | None = None, **field: str) -> None:
        """The restore preview with the value to write (`edit`; `field`: edit_kind, edit_error); Confirm runs `work`."""
        self.pending = work
        self.offered = (preview, heading, confirm, work, edit, field)
        dom.set_html("sw-restore", render_template("timeline_restore.j2", preview=preview, heading=heading,
                                                   confirm=confirm, edit=edit, **field))
        # Drawn above the timeline: a press on an old step far down the list would show it off screen (a phone).
        dom.bring_to_attention(dom.query(dom.element("sw-restore"), ".sw-restore-preview"))

    def reoffer(self, offered: tuple[Any, ...], text: str) -> None:
        """A preview whose confirmed work the server refused (401) shown again, with the text typed in it."""
        preview, heading, confirm, work, edit, field = offered
        self.show_preview(preview, heading, confirm, work, text if edit is not None else None,
                          **{**field, "edit_error": SIGN_IN_TO_CONFIRM})

    def _travel(self) -> TimeTravel | None:
        session = self.session()
        return session.time_travel() if session is not None else None
