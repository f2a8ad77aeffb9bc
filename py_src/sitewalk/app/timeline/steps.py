"""The timeline's list of steps in the page: drawn from what `session.history.TimelineFeed` shows.

A loaded page only adds its rows under the drawn ones (`timeline.drawing.plan_draw`): the rows on the
page stay the same nodes, so the scroll position, an open element and the focus stay where they were. A
turn's checks are one row ("3 checks", `timeline.folding`); pressing it draws its steps under it (and
hides them again); a fold stays open while the list is drawn again. What the list shows and which folds
are open is this object's, made once with the panel (`TimelinePanel`).
"""

from __future__ import annotations

from typing import Any

from ...base.trusted import TemplateHtml
from ...bridge import dom
from ...timeline import Append, Fold, Redraw, Row, TimelineShown, plan_draw
from ...ui.templating import render_template

__all__ = ["SENTINEL", "StepList"]

SENTINEL = "sw-timeline-sentinel"


class StepList:
    def __init__(self) -> None:
        self.shown: TimelineShown | None = None  # what the list shows now: a loaded page appends to it
        self.opened: set[str] = set()  # the folds of checks the inspector opened (their ids), on the thread drawn

    def draw(self, shown: TimelineShown) -> None:
        """Draw what the feed shows: another thread's open details and preview are cleared."""
        last = self.shown
        if last is None or last.thread_id != shown.thread_id:
            dom.set_html("sw-step-details", "")
            dom.set_html("sw-restore", "")
            self.opened.clear()
        rows = dom.element("sw-timeline")
        if last is not None and rows.childElementCount != len(last.rows):
            last = None  # the list was emptied (another inspection opened) or changed under us
        plan = plan_draw(last, shown)
        if isinstance(plan, Append) and not self._apply(rows, plan):
            plan = Redraw("a drawn row is missing")
        if isinstance(plan, Redraw):
            dom.set_html(rows, self._rows_html(shown.rows))
        rows.dataset.draw = "redraw" if isinstance(plan, Redraw) else "append"  # what the last draw did
        self.shown = shown
        dom.set_html("sw-branches", render_template("timeline_branches.j2", shown=shown))
        dom.element("sw-timeline-notice").textContent = shown.notice
        dom.element("sw-timeline-older").hidden = not shown.more
        dom.element(SENTINEL).hidden = not shown.more  # hidden: never in view, so nothing more is asked

    def toggle_fold(self, fold_id: str) -> None:
        """Open a fold of checks (its steps drawn under it) or close it; the focus stays on its button."""
        shown = self.shown
        fold = next((r for r in shown.rows if isinstance(r, Fold) and r.id == fold_id), None) if shown else None
        node = _row_node(dom.element("sw-timeline"), fold) if fold is not None else None
        if fold is None or node is None:
            return
        self.opened.symmetric_difference_update({fold_id})
        dom.replace_html(node, self._rows_html([fold]))
        again = _row_node(dom.element("sw-timeline"), fold)
        button = dom.query(again, ":scope > .sw-fold-toggle") if again is not None else None
        if button is not None:
            button.focus()

    def _rows_html(self, rows: tuple[Row, ...] | list[Row]) -> TemplateHtml:
        return render_template("timeline.j2", rows=rows, opened=self.opened)

    def _apply(self, rows: Any, plan: Append) -> bool:
        """Draw the changed rows again in their places, then add the new ones at the end (False: a row is missing)."""
        for row in plan.changed:
            node = _row_node(rows, row)
            if node is None:
                return False
            dom.replace_html(node, self._rows_html([row]))
        if plan.rows:
            dom.insert_html(rows, "beforeend", self._rows_html(plan.rows))
        return True


def _row_node(rows: Any, row: Row) -> Any:
    """The drawn list's own node for this row id, or None: a step's, or a fold's (keyed by its newest step, so a
    step drawn alone that a loaded page makes the newest of a fold is found, and drawn again as the fold)."""
    key = dom.css_escape(row.id)
    return dom.query(rows, f':scope > li[data-checkpoint-id="{key}"], :scope > li[data-fold-id="{key}"]')
