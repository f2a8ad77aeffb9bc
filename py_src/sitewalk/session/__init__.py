"""One inspection's conversation with the agent, in parts with one job each.

- `RunStream` (stream.py): one run's stream to the view, rejoined after a drop;
- `RunLoop` (loop.py): stream, answer the headless tools, resume, repeat; then the timeline;
- `HeadlessAnswers` (answers.py): what to send for each headless interrupt, each call once, with
  its answer book and egress log;
- `Outbox` (outbox.py): delivery that waits for the network and re-reads the thread before resending;
- `UiActions` (actions.py): a ConfirmButton's request; `TimelineFeed` (history.py): the history;
- `Cancellation` (cancel.py): the inspector's Cancel; `CallBoard` (calls.py): tool calls on the view;
- `Conversation` (conversation.py): the inspector's follow-up messages, one run at a time, none lost;
- `KeptMessages` (kept_messages.py): the messages that wait, kept on the device per thread (reloads);
- `restore_view` (restore.py): a thread's view rebuilt from the server's state (reload, reopen);
- `Reviews` (reviews.py): per-call review cards read from the thread's state, decisions by interrupt id;
- `Questions` (questions.py): the agent's questions to the inspector (the site walk), answered by interrupt id;
- `StuckGuard` (stuck.py, decisions in progress.py): a run that makes no progress shown stuck, with
  Cancel and Continue from the last checkpoint.

`InspectionSession` composes them: it holds no thread until one exists, then builds the parts
for it. Pure orchestration: the agent server through `AgentServerClient`, the screen through a
`View`, so the same code runs in the browser and under CPython tests.
"""

# The package's names are imported when first asked for (PEP 562), not with the package: the app imports
# a light submodule (progress, refusals, stuck_limits) at boot, and a package __init__ that imported the
# whole session would cost the first screen the timeline, the screen feed and the stream machinery.
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .inspection import InspectionSession
    from .parts import DeviceHooks, ScreenHooks
    from .refusals import Refused
    from .thread import ASSISTANT_ID, Thread
    from .view import View

__all__ = ["ASSISTANT_ID", "DeviceHooks", "InspectionSession", "Refused", "ScreenHooks", "Thread", "View"]

_HOME = {"ASSISTANT_ID": ".thread", "DeviceHooks": ".parts", "InspectionSession": ".inspection",
         "Refused": ".refusals", "ScreenHooks": ".parts", "Thread": ".thread", "View": ".view"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name], __name__), name)
