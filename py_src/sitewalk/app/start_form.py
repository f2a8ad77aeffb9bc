"""The start form folds to one summary line (the inspection id, expandable) once an inspection runs, so on a
phone the work, not the form, fills the screen. It stays open while the inspector is typing in it."""

from __future__ import annotations

from ..bridge import dom

__all__ = ["fold_start_form", "unfold_start_form"]

FORM = "sw-start-form"
SUMMARY = "sw-start-summary"


def fold_start_form(inspection_id: str) -> None:
    """Fold the form under a summary naming the inspection; the focus, if it was in the form, goes to the summary."""
    form, summary = dom.element(FORM), dom.element(SUMMARY)
    if form is None or summary is None:
        return
    summary.textContent = f"Inspection {inspection_id}"
    if dom.typing_elsewhere():
        return  # the inspector is typing in a field: it does not vanish under their fingers
    active = dom.active_element()
    if active is not None and form.contains(active):
        summary.focus()
    form.open = False


def unfold_start_form() -> None:
    """Open the form again (a start refused for want of a sign-in: Start is pressed again from it)."""
    form = dom.element(FORM)
    if form is not None:
        form.open = True
