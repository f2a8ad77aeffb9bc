"""A tool call's lifecycle: a pure state machine, exactly the one of the streamed-tool-calls article.

    collecting_args → args_ready → validated ─┬─ review_required → approved | rejected
                                              └─ review_not_required
    approved | review_not_required → running → succeeded | failed | outcome_unknown

Decisions beyond the article's drawing (each one a single edge, documented here):
- `args_ready → failed`: arguments that do not parse, or do not fit the tool's schema, end the call
  before it could be reviewed or run. The call *did* fail (the model's output was unusable); no new
  state is invented for it, and `detail` on the view says why.
- `outcome_unknown → succeeded | failed`: the request went out and its answer never came; the state is
  resolved only by reconciliation (the thread's state or the external system), never by a retry on a
  guess. A retry is a new call (its own id and idempotency key), so nothing leads back to `running`.
- Terminal: `rejected`, `succeeded`, `failed`. `outcome_unknown` is *not* terminal: it waits for
  reconciliation.

"arguments ready" and "validated" are labelled as waiting states on purpose: all arguments arrived
(or they fit the schema), nothing has run.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from sitewalk_shared.errors import SitewalkError

__all__ = [
    "CallStatus",
    "IllegalTransition",
    "LABELS",
    "TERMINAL",
    "TRANSITIONS",
    "CallLifecycle",
    "advance",
    "can_transition",
    "is_terminal",
    "label",
    "path_to",
]


class CallStatus(StrEnum):
    COLLECTING_ARGS = "collecting_args"
    ARGS_READY = "args_ready"
    VALIDATED = "validated"
    REVIEW_REQUIRED = "review_required"
    APPROVED = "approved"
    REJECTED = "rejected"
    REVIEW_NOT_REQUIRED = "review_not_required"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    OUTCOME_UNKNOWN = "outcome_unknown"


_S = CallStatus

TRANSITIONS: Mapping[CallStatus, frozenset[CallStatus]] = {
    _S.COLLECTING_ARGS: frozenset({_S.ARGS_READY}),
    _S.ARGS_READY: frozenset({_S.VALIDATED, _S.FAILED}),
    _S.VALIDATED: frozenset({_S.REVIEW_REQUIRED, _S.REVIEW_NOT_REQUIRED}),
    _S.REVIEW_REQUIRED: frozenset({_S.APPROVED, _S.REJECTED}),
    _S.APPROVED: frozenset({_S.RUNNING}),
    _S.REJECTED: frozenset(),
    _S.REVIEW_NOT_REQUIRED: frozenset({_S.RUNNING}),
    _S.RUNNING: frozenset({_S.SUCCEEDED, _S.FAILED, _S.OUTCOME_UNKNOWN}),
    _S.SUCCEEDED: frozenset(),
    _S.FAILED: frozenset(),
    _S.OUTCOME_UNKNOWN: frozenset({_S.SUCCEEDED, _S.FAILED}),
}
"""Every legal edge; anything else is an `IllegalTransition`."""

TERMINAL: frozenset[CallStatus] = frozenset(s for s, nxt in TRANSITIONS.items() if not nxt)

LABELS: Mapping[CallStatus, str] = {
    _S.COLLECTING_ARGS: "writing arguments…",
    _S.ARGS_READY: "arguments ready, not run",
    _S.VALIDATED: "arguments checked, not run",
    _S.REVIEW_REQUIRED: "waiting for review",
    _S.APPROVED: "approved, not run yet",
    _S.REJECTED: "rejected by the reviewer",
    _S.REVIEW_NOT_REQUIRED: "no review needed, not run yet",
    _S.RUNNING: "running…",
    _S.SUCCEEDED: "done",
    _S.FAILED: "failed",
    _S.OUTCOME_UNKNOWN: "outcome unknown: checking before any retry",
}
"""A human label per state; only `succeeded` reads as done, and a call the reviewer rejected never reads as
failed (it did not run: `sitewalk.session.calls` shows the reviewer's reason beside it)."""


class IllegalTransition(SitewalkError, ValueError):
    """A transition the lifecycle does not allow; names both ends."""

    def __init__(self, source: CallStatus, target: CallStatus, call_id: str | None = None) -> None:
        self.source = source
        self.target = target
        self.call_id = call_id
        where = f" (call {call_id})" if call_id else ""
        super().__init__(f"illegal tool-call transition {source.value} → {target.value}{where}")


def can_transition(source: CallStatus | str, target: CallStatus | str) -> bool:
    return CallStatus(target) in TRANSITIONS[CallStatus(source)]


def advance(source: CallStatus | str, target: CallStatus | str, call_id: str | None = None) -> CallStatus:
    """The new state, or `IllegalTransition`. Unknown state names raise ValueError from `CallStatus`."""
    src = source if isinstance(source, CallStatus) else CallStatus(source)  # a member needs no lookup by value
    dst = target if isinstance(target, CallStatus) else CallStatus(target)
    if dst not in TRANSITIONS[src]:
        raise IllegalTransition(src, dst, call_id)
    return dst


def is_terminal(status: CallStatus | str) -> bool:
    return CallStatus(status) in TERMINAL


def label(status: CallStatus | str) -> str:
    return LABELS[CallStatus(status)]


def path_to(source: CallStatus | str, target: CallStatus | str) -> list[CallStatus] | None:
    """The shortest legal route from `source` to `target` (excluding `source`; [] when equal), or None.

    For a view that learns of a call late (after a reload, or a tool the server ran on its own): the
    states it must have passed through. Shortest means a call nobody reviewed reaches `running` by
    `review_not_required`; a reviewed call is already at `approved`, one step from `running`.
    """
    src, dst = CallStatus(source), CallStatus(target)
    came_from: dict[CallStatus, CallStatus | None] = {src: None}
    queue = deque([src])
    while queue:
        state = queue.popleft()
        if state is dst:
            route: list[CallStatus] = []
            step: CallStatus | None = state
            while step is not None and step is not src:
                route.append(step)
                step = came_from[step]
            return route[::-1]
        for nxt in sorted(TRANSITIONS[state], key=list(CallStatus).index):
            if nxt not in came_from:
                came_from[nxt] = state
                queue.append(nxt)
    return None


@dataclass
class CallLifecycle:
    """One call's state and the path it took; each step checked by `advance`."""

    call_id: str | None = None
    status: CallStatus = CallStatus.COLLECTING_ARGS
    path: list[CallStatus] = field(default_factory=lambda: [CallStatus.COLLECTING_ARGS])

    def to(self, target: CallStatus | str) -> CallStatus:
        self.status = advance(self.status, target, self.call_id)
        self.path.append(self.status)
        return self.status

    def walk(self, targets: Iterable[CallStatus | str]) -> CallStatus:
        """Several steps in order; stops at the first illegal one (the steps before it stay taken)."""
        for target in targets:
            self.to(target)
        return self.status

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def label(self) -> str:
        return LABELS[self.status]
