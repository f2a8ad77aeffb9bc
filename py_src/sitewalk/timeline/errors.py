"""The timeline's typed errors: each says what was refused, and nothing was changed.

`TimelineError` and `InvalidEdit` are defined with the checker of typed values (`sitewalk.typed_value`),
which the review form uses too; they are handed on here beside the rest."""

from __future__ import annotations

from ..typed_value import InvalidEdit, TimelineError

__all__ = ["HistoryPageFailed", "HistoryNeedsSignIn", "InvalidEdit", "ReplayDeclined", "ReplayWouldBeDeclined",
           "RunActive", "SIGN_IN_TO_LOAD", "StaleResponse", "TimelineError", "UnknownCheckpoint"]

SIGN_IN_TO_LOAD = "sign in to load more: the timeline keeps the steps it has"


class UnknownCheckpoint(TimelineError):
    """The checkpoint does not exist, or belongs to another thread."""

    code = "unknown_checkpoint"

    def __init__(self, checkpoint_id: str, thread_id: str) -> None:
        super().__init__(f"checkpoint {checkpoint_id!r} is not a checkpoint of thread {thread_id!r}")
        self.checkpoint_id, self.thread_id = checkpoint_id, thread_id


class RunActive(TimelineError):
    """A run is going on the thread: a replay or fork now would race it."""

    code = "run_active"

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(f"run {run_id} is still going on thread {thread_id}; wait for it to end or cancel it")
        self.thread_id, self.run_id = thread_id, run_id


class HistoryPageFailed(TimelineError):
    """A history page could not be read after its retries; the timeline keeps the steps it has."""

    code = "history_page_failed"


class HistoryNeedsSignIn(HistoryPageFailed):
    """A history page the server refused for want of a sign-in (401); the timeline keeps the steps it has."""

    code = "sign_in_required"

    def __init__(self) -> None:
        super().__init__(SIGN_IN_TO_LOAD)


class StaleResponse(TimelineError):
    """A page that arrived for a timeline that is no longer shown (another thread, or a newer refresh)."""

    code = "stale_response"


class ReplayDeclined(TimelineError):
    """The replay reached a device tool that is now declined (e.g. location permission withdrawn)."""

    code = "replay_declined"

    def __init__(self, tool: str, tool_call_id: str, reason: str) -> None:
        super().__init__(f"the replay asked {tool} again and it was declined ({reason}); the branch before stays")
        self.tool, self.tool_call_id, self.reason = tool, tool_call_id, reason


class ReplayWouldBeDeclined(ReplayDeclined):
    """Known before the run: the step goes on with a device tool whose permission this device has denied.

    Nothing was started and nothing changed on the server (a `ReplayDeclined` is the same refusal
    learned after the run, when only the run could tell, e.g. what the model calls when it runs again).
    """

    code = "replay_would_be_declined"

    def __init__(self, tool: str, tool_call_id: str, permission: str) -> None:
        TimelineError.__init__(
            self, f"replaying from here asks {tool} ({tool_call_id}) again, and this device has denied "
                  f"{permission}: nothing was started. Allow {permission} for this site in the browser's "
                  "settings, then replay")
        self.tool, self.tool_call_id, self.reason, self.permission = tool, tool_call_id, "permission_denied", permission
