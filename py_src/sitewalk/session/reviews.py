"""Per-call review on the device: the pending reviews, the decisions sent, and calls of unknown outcome.

The server (`sitewalk_agent.review`) pauses each gated tool call with its own interrupt
`{"type": "tool_approval", "tool_call_id", "name", "args", "description", "args_revision", "args_hash"}`.

- What is pending is always read from the thread's state (`pending_interrupts` of type
  `tool_approval`), never from what buttons this page pressed: a reload or a reconnect shows
  exactly the reviews the server still waits on.
- A decision names the revision it was made on (`args_revision`, `args_hash` of the card). An edit
  is revision n+1 of the args: the edited args are what runs.
- Before anything is sent, the decisions are checked against a fresh read of the thread's state:
  one whose interrupt is no longer pending is refused `already_decided`, one whose hash differs from
  the pending args `stale_revision` (`Refused`, shown on its card); the others go in ONE resume
  command keyed by interrupt id. Undecided reviews are simply not in it: they stay pending. The server
  checks every decision again (revision, allowed type, an edit's args against the tool's contract) and
  refuses a bad one without failing the run: the call stays pending under a new interrupt id, its
  interrupt value carries `refusal: {code, field, message}` (`stale_revision`, `invalid_edit`,
  `invalid_decision`); that refusal is on the card (`PendingReview.refusal`) and comes back from
  `submit` as a `Refused` with its field. The other decisions of that resume still apply.
- A decided call whose resume went out and whose answer never came (the connection dropped, the
  server could not be reached) is `outcome_unknown`, never failed or succeeded, until `reconcile`
  reads the thread's state: a ToolMessage for the call settles it (succeeded or failed); the
  interrupt still pending means the decision never landed (review it again); otherwise it stays
  unknown and is not retried. A tool message that says the server's own request timed out
  (`outcome_unknown` envelope) settles nothing: the server reconciles it from the work-order
  database by idempotency key (`call_outcomes` in the state, `sitewalk_agent.outcomes`).
- A decision the server refuses for want of a sign-in (401: the token was revoked or expired) is not
  lost: its card keeps it and says "sign in to send it" (`sign_in_required`); once signed in the
  cards are read again and Send decisions sends it. A decision that did land before the 401 is gone
  from the server's pending reviews by then, so it is never sent twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from sitewalk_shared.contracts.envelope import is_outcome_unknown
from sitewalk_shared.contracts.tool_result import rejection

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base import trace_hooks
from ..base.server_errors import AgentServerError, ServerUnreachable, StreamError, Unauthorized
from ..calls.lifecycle import CallStatus
from .loop import RunLoop
from .refusals import Refused
from .thread import Thread
from .view import View

__all__ = ["OUTCOME_UNKNOWN", "PendingReview", "ReviewCards", "Reviews", "approve",
           "check_decisions", "edit", "pending_reviews", "reconcile", "reject", "server_refusals"]

REVIEW_TYPE = "tool_approval"
OUTCOME_UNKNOWN = CallStatus.OUTCOME_UNKNOWN.value  # the lifecycle's own states (calls.lifecycle)
RefusalCode = Literal["already_decided", "stale_revision", "invalid_decision", "invalid_edit", "sign_in_required"]
SIGN_IN_TO_SEND = ("not sent: the agent server asks you to sign in. Your decision stays on this card: sign in, "
                   "then Send decisions")


@dataclass(frozen=True)
class PendingReview:
    """One gated call waiting for a decision, as the server has it."""

    interrupt_id: str
    tool_call_id: str
    name: str
    args: dict[str, Any]
    description: str
    args_revision: int
    args_hash: str
    refusal: dict[str, Any] | None = None  # the server refused the last answer: {code, field, message}

    @classmethod
    def of(cls, interrupt: Mapping[str, object]) -> PendingReview | None:
        value = interrupt.get("value")
        if not isinstance(value, dict) or value.get("type") != REVIEW_TYPE:
            return None
        refusal = value.get("refusal")
        return cls(str(interrupt["id"]), str(value.get("tool_call_id")), str(value.get("name")),
                   dict(value.get("args") or {}), str(value.get("description") or ""),
                   int(value.get("args_revision") or 1), str(value.get("args_hash") or ""),
                   _refusal_shown(refusal) if isinstance(refusal, dict) else None)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _refusal_shown(refusal: Mapping[str, object]) -> dict[str, Any]:
    """The server's refusal as a card shows it: a code, the field (or None) and the reason."""
    field = refusal.get("field")
    return {"code": str(refusal.get("code") or "invalid_decision"), "field": str(field) if field else None,
            "message": str(refusal.get("message") or "")[:500]}


def server_refusals(pending: list[PendingReview], sent: Mapping[str, str]) -> list[Refused]:
    """The decisions just sent (`sent`: tool_call_id -> name) that the server refused: their call still
    waits, its review carrying the refusal (a decision it took would have ended the review)."""
    return [Refused(r.refusal["code"], r.refusal["message"], interrupt_id=r.interrupt_id, field=r.refusal["field"])
            for r in pending if r.tool_call_id in sent and r.refusal is not None]


def _named(review: PendingReview) -> dict[str, Any]:
    return {"args_revision": review.args_revision, "args_hash": review.args_hash}


def approve(review: PendingReview) -> dict[str, Any]:
    return {"type": "approve", **_named(review)}


def edit(review: PendingReview, args: Mapping[str, object]) -> dict[str, Any]:
    """Revision n+1: these args run in place of the reviewed ones (the decision names revision n)."""
    return {"type": "edit", **_named(review), "edited_action": {"name": review.name, "args": dict(args)}}


def reject(review: PendingReview, reason: str) -> dict[str, Any]:
    return {"type": "reject", **_named(review), "message": reason.strip() or "rejected by the reviewer"}


def pending_reviews(state: Mapping[str, object]) -> list[PendingReview]:
    """The reviews a thread state waits on, in the server's order."""
    found = (PendingReview.of(i) for i in pending_interrupts(dict(state)))
    return [r for r in found if r is not None]


def check_decisions(decisions: Mapping[str, dict[str, Any]], state: Mapping[str, object]
                    ) -> tuple[dict[str, dict[str, Any]], list[Refused]]:
    """Split `{interrupt_id: decision}` into what may be sent and what is refused, against `state`."""
    pending = {r.interrupt_id: r for r in pending_reviews(state)}
    good: dict[str, dict[str, Any]] = {}
    refused: list[Refused] = []
    for iid, decision in decisions.items():
        review = pending.get(iid)
        if review is None:
            refused.append(Refused("already_decided", "the server no longer waits on this review", interrupt_id=iid))
        elif decision.get("type") not in ("approve", "edit", "reject"):
            refused.append(Refused("invalid_decision", f"unknown decision {decision.get('type')!r}", interrupt_id=iid))
        elif (decision.get("args_revision"), decision.get("args_hash")) != (review.args_revision, review.args_hash):
            refused.append(Refused("stale_revision", f"the decision was made on other args than "
                                         f"revision {review.args_revision} pending on the server", interrupt_id=iid))
        else:
            good[iid] = decision
    return good, refused


def reconcile(call_ids: Mapping[str, str], state: Mapping[str, Any]) -> dict[str, str]:
    """tool_call_id -> succeeded | failed (a ToolMessage), rejected (the reviewer's rejection, it never ran),
    review_required (still pending), or outcome_unknown
    (no ToolMessage, or one saying the server's own request got no answer and `call_outcomes` not settling it)."""
    values = state.get("values") or {}
    answered = {str(m.get("tool_call_id")): m for m in values.get("messages") or []
                if isinstance(m, dict) and m.get("type") == "tool"}
    waiting = {r.tool_call_id for r in pending_reviews(state)}
    out: dict[str, str] = {}
    reconciled = values.get("call_outcomes") or {}
    for call_id in call_ids:
        if call_id in answered and is_outcome_unknown(answered[call_id].get("content")):
            # the server's request went out, its answer never came: known once reconciled by key
            found = (reconciled.get(call_id) or {}).get("status")
            out[call_id] = found if found in (CallStatus.SUCCEEDED, CallStatus.FAILED) else OUTCOME_UNKNOWN
        elif call_id in answered and rejection(answered[call_id]) is not None:
            out[call_id] = CallStatus.REJECTED  # the reviewer said no: it never ran
        elif call_id in answered:
            out[call_id] = CallStatus.FAILED if answered[call_id].get("status") == "error" else CallStatus.SUCCEEDED
        else:
            out[call_id] = CallStatus.REVIEW_REQUIRED if call_id in waiting else OUTCOME_UNKNOWN
    return out


class ReviewCards(Protocol):
    """Where the pending reviews are shown (`app.review_view.ReviewCardsView` in the browser)."""

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        """Every review the server waits on (`PendingReview.as_dict`), one card each; none: no cards."""

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        """A decision not sent, or refused by the server (already_decided, stale_revision), on its card."""

    def review_held(self, interrupt_id: str, decision: dict[str, Any], message: str) -> None:
        """A decision not sent for want of a sign-in: its card keeps it (to send again) and says why."""


class NoCards:
    """No review display (a session without one): pending reviews are still never approved by default."""

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        return None

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        return None

    def review_held(self, interrupt_id: str, decision: dict[str, Any], message: str) -> None:
        return None


class Reviews:
    """The review cards of one thread: shown from the server's state, decided by interrupt id."""

    def __init__(self, client: AgentServerClient, thread: Thread, view: View, loop: RunLoop,
                 cards: ReviewCards | None = None) -> None:
        self.client = client
        self.thread = thread
        self.view = view  # the tool calls' states (outcome_unknown, then how they ended)
        self.cards: ReviewCards = cards or NoCards()
        self.loop = loop
        self.unknown: dict[str, str] = {}  # tool_call_id -> tool name, sent but not known to have landed

    async def refresh(self) -> list[PendingReview]:
        """Read the thread's state; show every pending review and settle the calls of unknown outcome."""
        state = dict(await self.client.threads.get_state(self.thread.id))
        self._settle(state)
        pending = pending_reviews(state)
        self.cards.reviews([r.as_dict() for r in pending])
        return pending

    async def submit(self, decisions: Mapping[str, dict[str, Any]]) -> list[Refused]:
        """Send the decisions that still apply, in one resume; return (and show) the refused ones.
        Without a sign-in the server accepts, every decision not known to have landed is held on its card."""
        try:
            state = dict(await self.client.threads.get_state(self.thread.id))
        except Unauthorized:
            return self._hold(decisions)
        self._settle(state)
        good, refused = check_decisions(decisions, state)
        sent = {r.tool_call_id: r.name for r in pending_reviews(state) if r.interrupt_id in good}
        if good:
            try:
                with trace_hooks.decisions(state, good):
                    refused += await self._send(good, sent)
                trace_hooks.flush()  # the decisions' spans end with the resume's run, after its own flush
            except Unauthorized:  # refused before it ran; if it landed anyway, the next read drops its card
                return refused + self._hold(good, refused)
        for r in refused:
            self.cards.review_refused(str(r.interrupt_id), r.code, r.message)
        try:
            refused += server_refusals(await self.refresh(), sent if good else {})  # shown on their cards
        except ServerUnreachable:  # the cards of unknown outcome stay so until the server is read again
            self.view.status("Agent server out of reach: the outcome of the decisions sent is unknown for now")
        except Unauthorized:  # sent; the cards are read again once signed in
            self.view.status("Decisions sent; sign in to see what the agent waits on next")
        return refused

    def _hold(self, decisions: Mapping[str, dict[str, Any]], refused: list[Refused] | None = None
              ) -> list[Refused]:
        """Keep each decision on its card, to send once signed in (the refusals known so far shown too)."""
        for r in refused or []:
            self.cards.review_refused(str(r.interrupt_id), r.code, r.message)
        for iid, decision in decisions.items():
            self.cards.review_held(iid, dict(decision), SIGN_IN_TO_SEND)
        self.view.status(f"{len(decisions)} review decision(s) not sent: sign in to send them")
        return [Refused("sign_in_required", SIGN_IN_TO_SEND, interrupt_id=iid) for iid in decisions]

    async def _send(self, good: dict[str, dict[str, Any]], sent: dict[str, str]) -> list[Refused]:
        try:
            await self.loop.run(command={"resume": good})
        except Unauthorized:
            raise  # nothing ran for want of a sign-in: not an unknown outcome (see `submit`)
        except StreamError as error:
            if "stale_revision" in str(error):  # the server's own check refused it: nothing ran
                return [Refused("stale_revision", str(error)[:300], interrupt_id=iid) for iid in good]
            self._unknown(sent)
        except AgentServerError:  # the request went out (or may have), its answer never came
            self._unknown(sent)
        return []

    def _unknown(self, calls: dict[str, str]) -> None:
        self.unknown.update(calls)
        for call_id, name in calls.items():
            self.view.tool_call(call_id, name, OUTCOME_UNKNOWN, "no answer came; checking the thread before any retry")

    def _settle(self, state: Mapping[str, object]) -> None:
        for call_id, status in reconcile(self.unknown, state).items():
            if status != OUTCOME_UNKNOWN:
                self.view.tool_call(call_id, self.unknown.pop(call_id), str(status))
