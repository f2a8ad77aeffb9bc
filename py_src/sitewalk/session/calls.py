"""Tool calls on the view: each call walks the lifecycle (`sitewalk.calls.lifecycle`), shown as it goes.

The board keeps one `CallLifecycle` per call id and shows every state it reaches:
`collecting_args` while fragments arrive, `args_ready` when the message ends, then for a headless tool
answered here `validated → review_not_required → running` (its interrupt reached the device: the server
checked the arguments against the tool's schema, and headless tools are not gated), and `succeeded` or
`failed` from this device's answer or the server's tool message. A state learned late (after a reload,
or a tool the server ran on its own) is reached through the states it must have passed (`path_to`).
A state the call has already left (an event replayed by a rejoin) moves nothing: the view never goes
back. Review (`review_required → approved | rejected`) is moved by the review part with `show`.

The arguments grow on the view by what each change brought (`args`, a `calls.view.CallView`: the
fragments of a frame joined, appended; a whole message's arguments, a snapshot, replace what is shown), so
the view's work stays linear in the stream instead of writing the whole text again per fragment.

Where a call completes or fails: `CallBoard.show`, the one place every state the view shows passes (a
call that ran ends there from `_ran`, a rejected one from `settle`, a cancelled headless one from
`session.answers`); the lifecycle there reaching a terminal state is the call's end. Before that, its
arguments end once, in `calls.assembly.CallAssembler.finish` (ready, or unusable).

A server tool whose request went out and whose answer never came (its tool message carries the
`outcome_unknown` envelope) is shown `outcome_unknown`, never failed or succeeded, until the thread's
`call_outcomes` (the server's reconciliation by idempotency key, `sitewalk_agent.outcomes`) says how
it ended; then it moves on from `outcome_unknown` to that end, with the work order found.

A typed error the tool's contract lists as an ordinary answer (`calls.words.expected_answer`:
`read_local_draft`'s `not_found` on a device with no draft) stays `failed` in the lifecycle (the call did
not return a draft; the agent goes on from it), but the view reads its words ("No saved draft on this
device") instead of "failed" and the message the model got; its code stays on the row. Every other error
reads failed, with its code and message.

A call the reviewer rejected (its tool message says so: `contracts.tool_result.rejection`) is shown
`rejected` ("rejected by the reviewer", with the reviewer's reason as its detail), never `failed`: it did
not run.

The board shows what RAN, not what was proposed: a call a reviewer edited carries LangChain's edit
notice before its response (`contracts.tool_result`); its arguments on the view are replaced by the
executed ones, and its detail says "edited by the reviewer" and the work order it filed or found again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sitewalk_shared.contracts.envelope import is_outcome_unknown
from sitewalk_shared.contracts.tool_result import ToolResult, read_tool_result, rejection, tool_envelope

from ..calls.lifecycle import CallLifecycle, CallStatus, path_to
from ..calls.view import CallView
from ..calls.words import ExpectedAnswer, expected_answer
from .view import View

__all__ = ["CallBoard", "envelope_detail", "error_code", "error_summary", "ran_detail"]


class CallBoard:
    def __init__(self, view: View) -> None:
        self.view = view
        self.settled: set[str] = set()  # tool calls whose end the view has shown
        self.lifecycles: dict[str, CallLifecycle] = {}

    def forget(self) -> None:
        """Forget every call seen: the view is drawn anew from a thread's state (a time-travel run), where a
        call of the new run may carry an id the old branch had and must walk its lifecycle from the start."""
        self.settled.clear()
        self.lifecycles.clear()

    def status(self, call_id: str) -> CallStatus | None:
        found = self.lifecycles.get(call_id)
        return found.status if found else None

    def show(self, call_id: str, name: str, state: str, detail: str = "",
             answer: ExpectedAnswer | None = None) -> bool:
        """Move the call to `state` (through the states it must have passed) and show it.

        False, and nothing shown, when the call cannot get there (it already left that state)."""
        if not self._move(call_id, state):
            return False
        self.view.tool_call(call_id, name, self.lifecycles[call_id].status, detail, answer)
        return True

    def args(self, call: CallView) -> None:
        """A change to a call's arguments (a frame's fragments, or a snapshot): appended, or replacing them."""
        if call.delta or call.replaced:
            self.view.tool_args(call.call_id, call.delta, replace=call.replaced)

    def _move(self, call_id: str, state: str) -> bool:
        call = self.lifecycles.setdefault(call_id, CallLifecycle(call_id))
        route = path_to(call.status, state)
        if route is None:
            return False
        call.walk(route)
        return True

    def ended(self, call_id: str, name: str, envelope: Mapping[str, object]) -> None:
        """This device answered the call with `envelope` (the call ran here)."""
        error = envelope.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        self._ran(call_id, name, bool(envelope.get("ok")), envelope_detail(envelope), code)

    def settle(self, messages: list[object], outcomes: Mapping[str, object] | None = None) -> None:
        """A tool message in the state is the server's word on how a call ended (shown once); for a call
        of unknown outcome, `outcomes` (the state's `call_outcomes`) is, once it is reconciled."""
        for message in messages:
            if not isinstance(message, dict) or message.get("type") != "tool":
                continue
            call_id = str(message.get("tool_call_id") or "")
            if not call_id or call_id in self.settled:
                continue
            name = str(message.get("name") or "?")
            if is_outcome_unknown(message.get("content")):
                self._unknown(call_id, name, message.get("content"), (outcomes or {}).get(call_id))
                continue
            reason = rejection(message)
            if reason is not None:  # the reviewer said no: it never ran, it did not fail
                self.settled.add(call_id)
                self.show(call_id, name, CallStatus.REJECTED, reason)
                continue
            result = read_tool_result(message.get("content"))
            if result.executed is not None:  # a reviewer's edit ran: show what ran, not what was proposed
                self.view.tool_args(call_id, json.dumps(result.executed["args"], ensure_ascii=False, sort_keys=True),
                                    replace=True)
            failed = message.get("status") == "error"
            self._ran(call_id, name, not failed, ran_detail(result, failed),
                      error_code(result.body) if failed else None)

    def _unknown(self, call_id: str, name: str, content: Any, outcome: Any) -> None:
        """Shown `outcome_unknown` (once) until the reconciled outcome says how the call ended."""
        status = outcome.get("status") if isinstance(outcome, dict) else None
        if status in (CallStatus.SUCCEEDED, CallStatus.FAILED):
            self._move(call_id, CallStatus.OUTCOME_UNKNOWN)  # learnt late (a reload): it was unknown first
            order = outcome.get("work_order")
            self._ran(call_id, name, status == CallStatus.SUCCEEDED,
                      f"reconciled: work order {order}" if order else "reconciled")
        elif self.status(call_id) is not CallStatus.OUTCOME_UNKNOWN:
            self._move(call_id, CallStatus.RUNNING)
            self.show(call_id, name, CallStatus.OUTCOME_UNKNOWN, error_summary(content))

    def _ran(self, call_id: str, name: str, ok: bool, detail: str, code: object = None) -> None:
        """A call that ran ended: through `running`, never `args_ready → failed` (that means bad arguments).
        A failure whose code the tool's contract lists as an ordinary answer is shown in its words."""
        self.settled.add(call_id)
        if self.status(call_id) not in (CallStatus.RUNNING, CallStatus.OUTCOME_UNKNOWN):
            self._move(call_id, CallStatus.RUNNING)  # it ran, unseen: the end is what is shown
        answer = None if ok else expected_answer(name, code)
        self.show(call_id, name, CallStatus.SUCCEEDED if ok else CallStatus.FAILED,
                  "" if answer else detail, answer)


def envelope_detail(envelope: Mapping[str, Any]) -> str:
    """'' for a result, 'code: message' for an error envelope."""
    if envelope.get("ok"):
        return ""
    error = envelope.get("error") or {}
    return f"{error.get('code')}: {error.get('message')}"


def ran_detail(result: ToolResult, failed: bool) -> str:
    """What the call board says of a call that ran: edited by the reviewer, the work order it filed or found
    again (`WO-…`), or why it failed."""
    said = ["edited by the reviewer"] if result.edited else []
    if failed:
        return "; ".join([*said, error_summary(result.body)])
    found = (tool_envelope(result.body) or {}).get("result")
    found = found if isinstance(found, dict) else {}
    order = found.get("work_order")
    if isinstance(order, str) and order:
        said.append(f"work order {order} {'found again' if found.get('replayed') else 'filed'}")
    return "; ".join(said)


def _body(content: object) -> object:
    """A tool message's body parsed (after any edit notice); the text itself when it is not JSON."""
    if isinstance(content, (str, list)):
        content = read_tool_result(content).body
    try:
        return json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return content


def error_code(content: object) -> str | None:
    """The typed error's code of a failed tool message's envelope, or None when it has none."""
    body = _body(content)
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def error_summary(content: object) -> str:
    """'code: message' from a failed tool message's envelope (after any edit notice), or its text."""
    body = _body(content)
    if isinstance(body, str):
        return body[:200]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return f"{body['error'].get('code')}: {body['error'].get('message')}"
    if isinstance(body, dict) and body.get("issues"):
        return ", ".join(sorted({str(i.get("code")) for i in body["issues"] if isinstance(i, dict)}))
    return str(content)[:200]
