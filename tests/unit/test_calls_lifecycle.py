"""The tool-call lifecycle: every state, every legal and every illegal transition."""

from __future__ import annotations

import itertools

import pytest

from sitewalk.calls.lifecycle import (
    LABELS,
    TERMINAL,
    TRANSITIONS,
    CallLifecycle,
    CallStatus,
    IllegalTransition,
    advance,
    can_transition,
    is_terminal,
    label,
    path_to,
)

S = CallStatus

# The article's machine, written out edge by edge (independently of TRANSITIONS), plus the two
# documented decisions: args_ready → failed, outcome_unknown → succeeded | failed (reconciled).
LEGAL = {
    (S.COLLECTING_ARGS, S.ARGS_READY),
    (S.ARGS_READY, S.VALIDATED),
    (S.ARGS_READY, S.FAILED),
    (S.VALIDATED, S.REVIEW_REQUIRED),
    (S.VALIDATED, S.REVIEW_NOT_REQUIRED),
    (S.REVIEW_REQUIRED, S.APPROVED),
    (S.REVIEW_REQUIRED, S.REJECTED),
    (S.APPROVED, S.RUNNING),
    (S.REVIEW_NOT_REQUIRED, S.RUNNING),
    (S.RUNNING, S.SUCCEEDED),
    (S.RUNNING, S.FAILED),
    (S.RUNNING, S.OUTCOME_UNKNOWN),
    (S.OUTCOME_UNKNOWN, S.SUCCEEDED),
    (S.OUTCOME_UNKNOWN, S.FAILED),
}
ALL_PAIRS = list(itertools.product(CallStatus, CallStatus))
ILLEGAL = [pair for pair in ALL_PAIRS if pair not in LEGAL]


def test_the_states_are_exactly_the_articles():
    assert [s.value for s in CallStatus] == [
        "collecting_args", "args_ready", "validated", "review_required", "approved", "rejected",
        "review_not_required", "running", "succeeded", "failed", "outcome_unknown",
    ]
    assert set(TRANSITIONS) == set(CallStatus)


@pytest.mark.parametrize(("source", "target"), sorted(LEGAL))
def test_legal_transition(source, target):
    assert can_transition(source, target)
    assert advance(source, target) is target
    assert advance(source.value, target.value) is target  # the wire's plain strings work too


@pytest.mark.parametrize(("source", "target"), ILLEGAL)
def test_illegal_transition_raises_a_typed_error_naming_both_ends(source, target):
    assert not can_transition(source, target)
    with pytest.raises(IllegalTransition) as caught:
        advance(source, target, call_id="call-7")
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.source, error.target, error.call_id) == (source, target, "call-7")
    assert source.value in str(error) and target.value in str(error) and "call-7" in str(error)
    with pytest.raises(IllegalTransition) as caught:  # the wire's plain strings: the error names members
        advance(source.value, target.value)
    assert caught.value.source is source and caught.value.target is target


def test_the_matrix_is_complete():
    assert len(LEGAL) + len(ILLEGAL) == len(CallStatus) ** 2 == 121


@pytest.mark.parametrize("status", list(CallStatus))
def test_terminal_states_have_no_way_out_and_others_do(status):
    expected_terminal = status in {S.REJECTED, S.SUCCEEDED, S.FAILED}
    assert is_terminal(status) is expected_terminal
    assert (status in TERMINAL) is expected_terminal
    assert bool(TRANSITIONS[status]) is not expected_terminal


@pytest.mark.parametrize("status", list(CallStatus))
def test_every_state_has_a_label_and_only_succeeded_reads_as_done(status):
    text = label(status)
    assert text and text == LABELS[status]
    reads_done = "done" in text.lower() or "complete" in text.lower()
    assert reads_done is (status is S.SUCCEEDED)


def test_arguments_ready_is_labelled_as_not_run():
    assert "not run" in label(S.ARGS_READY)
    assert "not run" in label(S.VALIDATED)


def test_an_unknown_state_name_is_a_value_error():
    with pytest.raises(ValueError):
        advance("collecting_args", "finished")


def test_a_lifecycle_walks_the_reviewed_path_and_records_it():
    call = CallLifecycle("call-1")
    call.walk([S.ARGS_READY, S.VALIDATED, S.REVIEW_REQUIRED, S.APPROVED, S.RUNNING, S.SUCCEEDED])
    assert call.status is S.SUCCEEDED and call.terminal and call.label == "done"
    assert call.path[0] is S.COLLECTING_ARGS and call.path[-1] is S.SUCCEEDED and len(call.path) == 7


def test_a_lifecycle_refuses_skipping_review_and_keeps_its_state():
    call = CallLifecycle("call-2")
    call.walk(["args_ready", "validated", "review_required"])
    with pytest.raises(IllegalTransition):
        call.to(S.RUNNING)  # a gated call never runs without a decision
    assert call.status is S.REVIEW_REQUIRED and call.path[-1] is S.REVIEW_REQUIRED


def test_rejected_is_final():
    call = CallLifecycle("call-3")
    call.walk(["args_ready", "validated", "review_required", "rejected"])
    for target in CallStatus:
        with pytest.raises(IllegalTransition):
            call.to(target)


def test_path_to_a_state_seen_late_goes_through_the_unreviewed_route():
    assert path_to(S.COLLECTING_ARGS, S.RUNNING) == [S.ARGS_READY, S.VALIDATED, S.REVIEW_NOT_REQUIRED, S.RUNNING]
    assert path_to(S.APPROVED, S.SUCCEEDED) == [S.RUNNING, S.SUCCEEDED]
    assert path_to(S.ARGS_READY, S.FAILED) == [S.FAILED]
    assert path_to(S.RUNNING, S.RUNNING) == []


@pytest.mark.parametrize(("source", "target"), ALL_PAIRS)
def test_path_to_is_legal_step_by_step_or_none_when_unreachable(source, target):
    route = path_to(source, target)
    if route is None:
        assert source is not target and not _reachable(source, target)
        return
    state = source
    for step in route:
        state = advance(state, step)
    assert state is target


def _reachable(source: CallStatus, target: CallStatus) -> bool:
    seen, todo = set(), [source]
    while todo:
        state = todo.pop()
        if state is target:
            return True
        seen.add(state)
        todo.extend(n for n in TRANSITIONS[state] if n not in seen)
    return False
