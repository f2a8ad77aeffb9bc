"""The review part of the session with a fake transport: cards from the thread's state, decisions by
interrupt id in one resume, refusals before sending, and outcome_unknown reconciled from the state."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fake_agent_server import (
    HISTORY,
    INTERRUPT,
    OFFLINE,
    RUNS,
    STATE,
    FakeTransport,
    RecordingView,
    sse,
    waiting_state,
)
from sessions_for_tests import no_wait, parts_on, resumes

from sitewalk.session.parts import ThreadParts
from sitewalk.session.reviews import (
    OUTCOME_UNKNOWN,
    PendingReview,
    approve,
    check_decisions,
    edit,
    pending_reviews,
    reconcile,
    reject,
)
from sitewalk_shared.contracts.envelope import unknown_outcome


def review(iid: str, call: str, subject: str, digest: str) -> dict[str, Any]:
    return {"id": iid, "value": {"type": "tool_approval", "tool_call_id": call, "name": "create_work_order",
                                 "args": {"inspection_id": "inspection-42", "subject": subject},
                                 "description": "Raise a repair work order.", "args_revision": 1, "args_hash": digest}}


BOLT = review("int-a", "call_a", "Loose bolt", "a" * 64)
DRAIN = review("int-b", "call_b", "Corroded drain", "b" * 64)
DONE_A = {"type": "tool", "name": "create_work_order", "tool_call_id": "call_a", "status": "success", "content": "{}"}


class ReviewView(RecordingView):
    def __init__(self) -> None:
        super().__init__()
        self.cards: list[list[dict[str, Any]]] = []
        self.refused: list[tuple[str, str]] = []

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        self.cards.append(pending)

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.refused.append((interrupt_id, code))


def _card(interrupt: dict[str, Any]) -> PendingReview:
    found = PendingReview.of(interrupt)
    assert found is not None
    return found


def submit(fake: FakeTransport, decisions: dict[str, Any]) -> tuple[ReviewView, list[Any], ThreadParts]:
    async def go() -> tuple[ReviewView, list[Any], ThreadParts]:
        view = ReviewView()
        parts = parts_on(fake, view, wait_for_network=no_wait, review_cards=view)
        refused = await parts.reviews.submit(decisions)
        return view, refused, parts

    return asyncio.run(go())


def run_ends() -> str:
    return sse(("metadata", {"run_id": "r2"}, "1-0"), ("values", {"messages": [DONE_A]}, "2-0"))


def test_only_reviews_are_cards_and_same_tool_calls_stay_distinct() -> None:
    found = pending_reviews(waiting_state(INTERRUPT, BOLT, DRAIN))
    assert [(r.interrupt_id, r.tool_call_id, r.args["subject"]) for r in found] == [
        ("int-a", "call_a", "Loose bolt"), ("int-b", "call_b", "Corroded drain")]


def test_decisions_name_the_revision_and_an_edit_carries_the_new_args() -> None:
    card = _card(BOLT)
    assert approve(card) == {"type": "approve", "args_revision": 1, "args_hash": "a" * 64}
    edited = edit(card, {"inspection_id": "inspection-42", "subject": "Replace bolt"})
    assert edited["edited_action"] == {"name": "create_work_order",
                                       "args": {"inspection_id": "inspection-42", "subject": "Replace bolt"}}
    assert edited["args_hash"] == "a" * 64  # the revision it was made on
    assert reject(card, "  ")["message"] and reject(card, "no")["message"] == "no"


def test_one_decision_of_two_goes_in_one_resume_and_the_other_stays_pending() -> None:
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(BOLT, DRAIN)), (200, waiting_state(DRAIN)))
            .on("POST", f"{RUNS}/stream", run_ends()).on("POST", HISTORY, (200, [])))
    view, refused, _ = submit(fake, {"int-a": approve(_card(BOLT))})
    assert refused == [] and resumes(fake) == [{"int-a": approve(_card(BOLT))}]
    assert [c["interrupt_id"] for c in view.cards[-1]] == ["int-b"]  # re-read from the server, not local state


def test_a_decided_interrupt_is_refused_before_sending() -> None:
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(DRAIN)), (200, waiting_state()))
            .on("POST", f"{RUNS}/stream", run_ends()).on("POST", HISTORY, (200, [])))
    view, refused, _ = submit(fake, {"int-a": approve(_card(BOLT)), "int-b": approve(_card(DRAIN))})
    assert [(r.interrupt_id, r.code) for r in refused] == [("int-a", "already_decided")]
    assert resumes(fake) == [{"int-b": approve(_card(DRAIN))}]  # the rest of the batch still goes
    assert ("int-a", "already_decided") in view.refused


def test_a_stale_revision_is_refused_before_sending() -> None:
    moved = review("int-a", "call_a", "Loose bolt", "c" * 64)  # the server's pending args differ
    fake = FakeTransport().on("GET", STATE, (200, waiting_state(moved)))
    view, refused, _ = submit(fake, {"int-a": approve(_card(BOLT))})
    assert [r.code for r in refused] == ["stale_revision"] and resumes(fake) == []
    assert view.refused == [("int-a", "stale_revision")]


def test_the_servers_stale_refusal_is_shown() -> None:
    error = sse(("metadata", {"run_id": "r2"}, "1-0"),
                ("error", {"error": "ValidationError", "message": "stale_revision: pending is revision 1"}, "2-0"))
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(BOLT)))
            .on("POST", f"{RUNS}/stream", error).on("POST", HISTORY, (200, [])))  # the timeline, read again
    view, refused, _ = submit(fake, {"int-a": approve(_card(BOLT))})
    assert [r.code for r in refused] == ["stale_revision"] and view.refused == [("int-a", "stale_revision")]
    assert [c["interrupt_id"] for c in view.cards[-1]] == ["int-a"]  # still pending


def test_a_lost_resume_is_outcome_unknown_then_reconciled_from_the_state() -> None:
    # The resume goes out, no answer; the server is out of reach for the state too.
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(BOLT)), OFFLINE,
                               (200, waiting_state(values={"messages": [DONE_A]})))
            .on("POST", f"{RUNS}/stream", OFFLINE))
    view, refused, parts = submit(fake, {"int-a": approve(_card(BOLT))})
    assert refused == [] and view.states("create_work_order") == [OUTCOME_UNKNOWN]
    assert "succeeded" not in view.states("create_work_order") and "failed" not in view.states("create_work_order")
    asyncio.run(parts.reviews.refresh())  # back online: the ToolMessage settles it
    assert view.states("create_work_order") == [OUTCOME_UNKNOWN, "succeeded"] and parts.reviews.unknown == {}


def test_a_retry_after_a_lost_resume_that_landed_sends_nothing() -> None:
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(BOLT)), OFFLINE,
                               (200, waiting_state(values={"messages": [DONE_A]})))
            .on("POST", f"{RUNS}/stream", OFFLINE))
    _, _, parts = submit(fake, {"int-a": approve(_card(BOLT))})
    refused = asyncio.run(parts.reviews.submit({"int-a": approve(_card(BOLT))}))  # the inspector presses again
    assert [r.code for r in refused] == ["already_decided"] and len(resumes(fake)) == 1


def test_reconcile_reads_tool_messages_and_pending_interrupts() -> None:
    failed = {**DONE_A, "tool_call_id": "call_c", "status": "error"}
    state = waiting_state(DRAIN, values={"messages": [DONE_A, failed]})
    assert reconcile({"call_a": "x", "call_b": "x", "call_c": "x", "call_d": "x"}, state) == {
        "call_a": "succeeded", "call_b": "review_required", "call_c": "failed", "call_d": OUTCOME_UNKNOWN}


def test_reconcile_keeps_a_timed_out_server_call_unknown_until_call_outcomes_settles_it() -> None:
    content = json.dumps(unknown_outcome("create_work_order", "call_a", "no answer in 5 s", idempotency_key="k"))
    timed_out = {**DONE_A, "status": "error", "content": content}
    state = waiting_state(values={"messages": [timed_out]})
    assert reconcile({"call_a": "create_work_order"}, state) == {"call_a": OUTCOME_UNKNOWN}
    unknown = {"call_a": {"status": "outcome_unknown", "idempotency_key": "k"}}
    assert reconcile({"call_a": "x"}, waiting_state(values={"messages": [timed_out], "call_outcomes": unknown})) == {
        "call_a": OUTCOME_UNKNOWN}
    found = {"call_a": {"status": "succeeded", "work_order": "WO-1", "idempotency_key": "k"}}
    assert reconcile({"call_a": "x"}, waiting_state(values={"messages": [timed_out], "call_outcomes": found})) == {
        "call_a": "succeeded"}


def test_check_decisions_refuses_an_unknown_decision_type() -> None:
    good, refused = check_decisions({"int-a": {"type": "maybe", "args_revision": 1, "args_hash": "a" * 64}},
                                    waiting_state(BOLT))
    assert good == {} and [r.code for r in refused] == ["invalid_decision"]
