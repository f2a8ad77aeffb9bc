"""The inspector's timeline: a thread's checkpoints as named steps on branches, loaded page by page.

Pure (no browser imports), tested under CPython from recorded real history pages:
- `facts` keeps a few facts of each history entry, never its whole values;
- `naming` names a step for people from what it did ("Read your draft", "Waiting for your decision");
- `tree` builds the loaded part of the tree from `parent_checkpoint` (branches, the live path);
- `nested` keeps a subgraph's own steps (the site walk's) under the graph's step each ran from;
- `pager` loads it newest first with `limit` + `before`, retrying a failed page, through
- `guard`, which binds each response to the timeline that asked (a late page of another thread is dropped);
- `shown` is what the view draws (one branch, the switcher, a notice), as rows where
- `folding` folds a turn's internal checks into one row ("3 checks", opened on demand);
- `drawing` decides whether a new `shown` appends rows to the drawn list or redraws it;
- `preview` lists what a restore replaces and the external actions it would not undo;
- `ahead` names the device tools a replay from a step will ask for, known before it starts;
- `decisions` reads the review decisions a step carries, checks a changed one, says what it does to work orders;
- `errors`: the typed refusals.
"""

from __future__ import annotations

from .ahead import DeviceCall, called_after, device_calls_ahead
from .drawing import Append, Redraw, plan_draw
from .errors import (
    SIGN_IN_TO_LOAD,
    HistoryNeedsSignIn,
    HistoryPageFailed,
    InvalidEdit,
    ReplayDeclined,
    ReplayWouldBeDeclined,
    RunActive,
    StaleResponse,
    TimelineError,
    UnknownCheckpoint,
)
from .facts import StepFacts, checkpoint_id, facts_of
from .folding import Fold, Row, fold_steps
from .guard import StaleGuard, Ticket
from .naming import StepName, name_step
from .nested import NestedSteps, checkpoint_object
from .pager import PAGE_SIZE, FetchPage, TimelinePager
from .preview import ExternalAction, LookupOrder, RestorePreview, check_actions, restore_preview
from .shown import TimelineShown, shown
from .tree import Branch, Step, TimelineTree

__all__ = [
    "PAGE_SIZE", "SIGN_IN_TO_LOAD", "Append", "Branch", "DeviceCall", "ExternalAction", "FetchPage", "Fold",
    "HistoryNeedsSignIn", "HistoryPageFailed", "InvalidEdit", "LookupOrder", "NestedSteps", "Redraw",
    "ReplayDeclined", "ReplayWouldBeDeclined", "RestorePreview", "Row", "RunActive",
    "StaleGuard", "StaleResponse", "Step", "StepFacts", "StepName", "Ticket", "TimelineError", "TimelinePager",
    "TimelineShown", "TimelineTree", "UnknownCheckpoint", "check_actions", "checkpoint_id", "checkpoint_object",
    "called_after", "device_calls_ahead", "facts_of", "fold_steps", "name_step", "plan_draw", "restore_preview",
    "shown",
]
