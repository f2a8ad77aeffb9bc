"""A small soak with a fixed seed, in the suite (CI's durable step): 20 inspections on two Aegra servers
while one is killed three times (after a start, after an answer), six streams drop and three answers
are delivered twice (tests/durable/soak.py). The faults are planned from the seed, so their counts are
asserted as well as the outcome: nothing lost, nothing duplicated, nothing stuck, every duplicate answer
refused with a 4xx and nothing else refused, no server error. The long soak with
random seeds is `./sw bench` (tests/bench/test_soak.py)."""

from __future__ import annotations

import asyncio

import pytest
from durable_helpers import start_test_stack, stop_test_stack
from soak import SHORT_LEASE, Soak, plan, planned

SEED = 3
N = 20


@pytest.fixture
def stack():
    stack = start_test_stack("soak-small", workers=2, extra_env=SHORT_LEASE)
    try:
        yield stack
    finally:
        stop_test_stack(stack)


def test_a_small_soak_loses_duplicates_and_strands_nothing(stack):
    faults = plan(SEED, N)
    assert planned(faults) == {"kills": 3, "dropped_streams": 6, "duplicate_deliveries": 3}
    assert {f.kill for f in faults} == {None, "after_start", "after_answer"}
    soak = Soak(stack, SEED)
    seconds = asyncio.run(soak.run(faults))
    print("\n" + soak.summary(SEED, seconds))
    tally = soak.tally
    assert {name: tally[name] for name in planned(faults)} == planned(faults)  # every planned fault happened
    assert tally["restarts"] == 3
    assert (tally["inspections"], tally["finished"]) == (N, N)
    assert (tally["results_lost"], tally["duplicate_results"], tally["runs_stuck"]) == (0, 0, 0)
    # every duplicate answer was refused with a 4xx (it had been taken), and nothing else was refused
    assert tally["refused_duplicates"] == tally["refused_deliveries"] == tally["duplicate_deliveries"]
    assert (tally["server_errors"], tally["stream_errors"]) == (0, 0)
