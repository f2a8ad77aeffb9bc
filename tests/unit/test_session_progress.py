"""The stuck-run decisions (session/progress.py): when to ask the server, when a run is stuck, what Continue does."""

from __future__ import annotations

import pytest

from sitewalk.session.progress import (
    ContinueKind,
    ContinuePlan,
    ProgressWatch,
    RunProbe,
    StuckPolicy,
    StuckRun,
    Verdict,
    continue_plan,
    parse_choice,
)
from sitewalk.session.refusals import Refused

POLICY = StuckPolicy(quiet_s=10, confirm_s=5)
RUNNING = RunProbe("running", "c7")


def interrupted_at(t: float) -> ProgressWatch:
    watch = ProgressWatch(POLICY, now=0)
    watch.interrupted(t)
    return watch


def test_silence_on_a_stream_never_interrupted_asks_nothing():
    watch = ProgressWatch(POLICY, now=0)
    assert [watch.verdict(t) for t in (1, 11, 100, 10_000)] == [Verdict.FLOWING] * 4


def test_after_an_interruption_silence_asks_the_server_once_quiet_s_have_passed():
    watch = interrupted_at(3)
    assert watch.verdict(12.9) is Verdict.FLOWING
    assert watch.verdict(13) is Verdict.PROBE


def test_silence_counts_from_the_newest_event_or_interruption():
    watch = interrupted_at(3)
    watch.event(8)
    assert watch.verdict(17) is Verdict.FLOWING and watch.verdict(18) is Verdict.PROBE
    watch.interrupted(20)  # dropped again (the server still away)
    assert watch.verdict(29) is Verdict.FLOWING and watch.verdict(30) is Verdict.PROBE


def test_a_run_still_active_on_the_same_checkpoint_confirm_s_later_is_stuck():
    watch = interrupted_at(0)
    watch.probed(10, RUNNING)
    assert watch.verdict(12) is Verdict.FLOWING  # asked just now: wait confirm_s before asking again
    assert watch.verdict(15) is Verdict.PROBE
    watch.probed(15, RUNNING)
    assert watch.verdict(15) is Verdict.STUCK
    assert watch.stuck_run("r1", 15.04) == StuckRun("r1", "running", "c7", 15.0)


def test_a_pending_run_that_never_starts_is_stuck_too():
    watch = interrupted_at(0)
    watch.probed(10, RunProbe("pending", "c7"))
    watch.probed(15, RunProbe("pending", "c7"))
    assert watch.verdict(15) is Verdict.STUCK and watch.stuck_run("r1", 15).status == "pending"


def test_a_checkpoint_that_moved_is_progress_and_the_confirmation_starts_again():
    watch = interrupted_at(0)
    watch.probed(10, RUNNING)
    watch.probed(15, RunProbe("running", "c8"))
    assert watch.verdict(15) is Verdict.FLOWING
    watch.probed(20, RunProbe("running", "c8"))
    assert watch.verdict(20) is Verdict.STUCK


def test_a_server_out_of_reach_is_away_not_stuck():
    watch = interrupted_at(0)
    watch.probed(10, RUNNING)
    watch.probed(15, RunProbe(None))
    watch.probed(20, RUNNING)
    assert watch.verdict(20) is Verdict.FLOWING  # the confirmation starts again after the gap
    watch.probed(25, RUNNING)
    assert watch.verdict(25) is Verdict.STUCK


def test_a_run_the_server_says_ended_needs_its_silent_stream_no_more():
    watch = interrupted_at(0)
    watch.probed(10, RunProbe("success", "c9"))
    assert watch.verdict(10) is Verdict.ENDED


def test_an_event_lifts_a_stuck_verdict():
    watch = interrupted_at(0)
    watch.probed(10, RUNNING)
    watch.probed(15, RUNNING)
    watch.event(16)
    assert watch.verdict(16) is Verdict.FLOWING and watch.verdict(26) is Verdict.PROBE


def state(next_nodes: list[str], interrupts: list[dict] | None = None, checkpoint_id: str | None = "c7") -> dict:
    return {"values": {"messages": []}, "next": next_nodes, "interrupts": interrupts or [],
            "tasks": [], "checkpoint": {"checkpoint_id": checkpoint_id} if checkpoint_id else {}}


def test_continue_runs_on_from_the_newest_checkpoint_when_a_node_is_left_to_run():
    assert continue_plan(state(["model"])) == ContinuePlan(ContinueKind.RERUN, "c7")


def test_continue_starts_nothing_when_the_thread_waits_on_answers_or_has_nothing_left():
    waiting = state(["tools"], [{"id": "i1", "value": {"type": "tool"}}])
    assert continue_plan(waiting).kind is ContinueKind.ANSWER
    assert continue_plan(state([])).kind is ContinueKind.FINISHED


def test_continue_without_a_checkpoint_is_refused_with_a_code():
    with pytest.raises(Refused) as refused:
        continue_plan(state(["model"], checkpoint_id=None))
    assert refused.value.code == "no_checkpoint"


def test_only_cancel_and_continue_are_choices():
    assert parse_choice("cancel") == "cancel" and parse_choice("continue") == "continue"
    for bad in ("restart", "", "CANCEL", "continue "):
        with pytest.raises(Refused) as refused:
            parse_choice(bad)
        assert refused.value.code == "unknown_choice"


def test_a_rejoin_of_the_silent_stream_does_not_lift_a_stuck_verdict():
    watch = interrupted_at(0)
    watch.probed(10, RUNNING)
    watch.probed(15, RUNNING)
    watch.interrupted(75)  # the silent stream given up and rejoined (agentserver.stall)
    assert watch.verdict(75) is Verdict.STUCK
    watch.event(80)
    assert watch.verdict(80) is Verdict.FLOWING
