"""Time travel on one thread, the app's side: the timeline panel and its views, through the bridge.

- `TimelinePanel` (panel.py): answers the panel's presses (open a step, switch branch, older steps,
  replay, edit and resend) and shows the restore preview whose Confirm runs the work; it makes the
  views below and owns them, and with them all the state the timeline keeps in the page;
- `StepList` (steps.py): the list of steps drawn, a loaded page appended, a fold of checks opened;
- `details.py`: a step's details, read-only;
- `StepEditView` (step_edit.py) and `DecisionEditView` (decision_edit.py): a value or a review decision
  changed at a step;
- `TimelineControls` (controls.py): what those two views ask of the panel (the open inspection's time
  travel, a preview to confirm), so neither imports the panel.

The session's side is `sitewalk.session.travel`. The app makes a `TimelinePanel` with its first view
(`app.sessions`) and hands its `draw` to the `DomView`.
"""

from __future__ import annotations

from .panel import TimelinePanel

__all__ = ["TimelinePanel"]
