"""Where an inspection is, in the words the status line and the list of inspections both use (pure).

Decided from the thread, never from the run's status: a run that pauses on `interrupt()` ends with
run status `success` (Aegra says `interrupted`), and the thread's own status can say `error` while a
review still waits on the inspector. So, in this order:

- a pending interrupt: the thread waits, and the words say on what ("waiting for your review (3)",
  "waiting for your answer", "waiting for your decision", "waiting for this device"), even when the
  thread's status is `error`;
- a run going (the thread `busy`): "running";
- a task of the thread's current step that failed, or the thread's status `error`: "failed: <reason>",
  the reason taken from the failed task (`tasks[].error`, as both servers keep it), unless that is a cancel:
- a run that was cancelled (the inspector's Cancel, `action=interrupt`): "cancelled", as the status line
  said then. `langgraph dev` keeps the cancel as the failed task's error (`CancelledError()`, the thread
  in `error`); a server that leaves the thread `idle` says it in the run's status (`interrupted`), so the
  list reads an idle thread's newest run. Only for an idle thread does that run status mean a cancel: a
  run paused on `interrupt()` leaves its thread `interrupted` (Aegra calls such a run `interrupted` too),
  and a new run replaces the newest;
- else "done".

A device tool that asks the inspector while the run waits on it (the position, a photo) is "waiting
for your answer" too (`ASKING`): the dialog on the screen is the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from .agentserver.client import pending_interrupts

__all__ = [
    "ASKING", "CANCELLED", "DONE", "RUNNING", "InspectionStatus", "Phase", "failed", "failure_reason",
    "needs_newest_run", "needs_state", "status_of_state", "status_of_thread", "waiting_for",
]

MAX_REASON = 200  # characters of a failure's reason on the status line and in the list


class Phase(StrEnum):
    running = "running"
    waiting = "waiting"
    done = "done"
    cancelled = "cancelled"
    failed = "failed"


@dataclass(frozen=True)
class InspectionStatus:
    phase: Phase
    words: str  # what the inspector reads: "waiting for your review (3)", "failed: <reason>"

    @property
    def name(self) -> str:
        """The phase, for the page's data attributes and class names."""
        return self.phase.value

    def __str__(self) -> str:
        return self.words


RUNNING = InspectionStatus(Phase.running, "running")
DONE = InspectionStatus(Phase.done, "done")
CANCELLED = InspectionStatus(Phase.cancelled, "cancelled")  # the newest run was cancelled (an idle thread)
ASKING = InspectionStatus(Phase.waiting, "waiting for your answer")  # a device tool asks the inspector

# What each kind of interrupt waits on, in the order the words name them.
_WAITS_ON = {"tool_approval": "your review", "question": "your answer", "ui_action_request": "your decision",
             "tool": "this device"}


def waiting_for(interrupt_values: Iterable[object]) -> InspectionStatus:
    """The words for a thread waiting on these interrupts' values (reviews counted)."""
    counts: dict[str, int] = {}
    for value in interrupt_values:
        kind = str(value.get("type")) if isinstance(value, Mapping) else ""
        counts[kind] = counts.get(kind, 0) + 1
    parts = [f"{what} ({counts[kind]})" if kind == "tool_approval" else what
             for kind, what in _WAITS_ON.items() if kind in counts]
    if any(kind not in _WAITS_ON for kind in counts):
        parts.append("you")
    return InspectionStatus(Phase.waiting, "waiting for " + " and ".join(parts))


def failed(reason: str) -> InspectionStatus:
    reason = " ".join(reason.split()) or "the run ended in error"
    if len(reason) > MAX_REASON:
        reason = reason[: MAX_REASON - 1] + "…"
    return InspectionStatus(Phase.failed, f"failed: {reason}")


_CANCELLED = re.compile(r"^(asyncio\.(exceptions\.)?)?CancelledError(\(\)|: .*)?$", re.DOTALL)  # a cancelled task
_REPR = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)\((?P<quote>['\"])(?P<message>.*)(?P=quote)\)$", re.DOTALL)


def failure_reason(state: Mapping[str, object]) -> str | None:
    """Why the thread's current step failed (None: no task of it failed). The servers keep a task's error
    as the exception's repr (`ValueError('bad')`): shown as `ValueError: bad`."""
    tasks = state.get("tasks")
    for task in tasks if isinstance(tasks, list) else []:
        error = task.get("error") if isinstance(task, Mapping) else None
        if error:
            text = str(error)
            found = _REPR.match(text)
            return f"{found['type']}: {found['message']}" if found else text
    return None


def status_of_state(state: Mapping[str, object], *, thread_status: str | None = None,
                    run_active: bool = False) -> InspectionStatus:
    """From a thread's state (`GET /threads/{id}/state`), with the thread's status when known."""
    pending = pending_interrupts(dict(state))
    if pending:
        return waiting_for(i.get("value") for i in pending)
    if run_active or thread_status == "busy":
        return RUNNING
    reason = failure_reason(state)
    if reason is not None and _CANCELLED.match(reason):
        return CANCELLED
    if reason is not None or thread_status == "error":
        return failed(reason or "")
    return DONE


def needs_state(thread: Mapping[str, object]) -> bool:
    """Whether a thread as the search lists it says too little: a failed one (its reason is in the state),
    or one that waits without its interrupts listed (Aegra lists no interrupts)."""
    status = thread.get("status")
    return status == "error" or (status == "interrupted" and not _listed_interrupts(thread))


def needs_newest_run(thread: Mapping[str, object]) -> bool:
    """Whether the thread's newest run tells more: a thread at rest is done, unless that run was cancelled."""
    return thread.get("status") == "idle"


def status_of_thread(thread: Mapping[str, object], newest_run: Mapping[str, object] | None = None) -> InspectionStatus:
    """From a thread as the search lists it (its status, and its interrupts when the server lists them),
    and its newest run when read (`needs_newest_run`). For a thread that `needs_state`, read the state and
    use `status_of_state`; this says what it can."""
    status = thread.get("status")
    listed = _listed_interrupts(thread)
    if listed:
        return waiting_for(i.get("value") for i in listed)
    if status == "busy":
        return RUNNING
    if status == "interrupted":
        return InspectionStatus(Phase.waiting, "waiting for you")
    if status == "error":
        return failed("")
    if status == "idle" and newest_run is not None and newest_run.get("status") == "interrupted":
        return CANCELLED
    return DONE


def _listed_interrupts(thread: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The interrupts the listing gives (`{task_id: [interrupt, ...]}`), flattened, deduplicated by id."""
    found: dict[str, Mapping[str, object]] = {}
    listed = thread.get("interrupts")
    for items in listed.values() if isinstance(listed, Mapping) else []:
        for item in items if isinstance(items, list) else []:
            if isinstance(item, Mapping):
                found.setdefault(str(item.get("id") or item.get("interrupt_id") or len(found)), item)
    return list(found.values())
