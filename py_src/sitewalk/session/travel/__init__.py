"""Time travel on one thread, the session's side: replay, fork, changed values and changed decisions.

- `TimeTravel` (replay.py): replay from a step, fork by editing a message, the restore preview; the
  checks every time-travel request makes first (the checkpoint is this thread's, no run is going on);
- `StepEdits` (edits.py): the site walk's steps (ask again, change an answer) and a device's answer changed;
- `DecisionEdits` (decisions.py): a review decision changed at a step.

Each is given what it works with when it is made: `TimeTravel` the agent-server client and the thread's
parts (`InspectionSession.time_travel` makes it with the session's own client), the edits the
`TimeTravel` they fork with. The app's side is `sitewalk.app.timeline`.
"""

from __future__ import annotations

from .replay import NOTHING_TO_REPLAY, WAITING_FOR_WRAP_UP, TimeTravel

__all__ = ["NOTHING_TO_REPLAY", "WAITING_FOR_WRAP_UP", "TimeTravel"]
