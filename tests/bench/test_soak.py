"""Soak on the durable server: many inspections while servers die, connections drop and answers repeat.

Bounded and loopback only, in a cluster of its own that is removed afterwards. It stops by itself
after SITEWALK_SOAK_N inspections (default 200) or SITEWALK_SOAK_SECONDS (default 1500), whichever
comes first, and prints its figures. Run by `./sw bench` (not in the test suite; a small one with a
fixed seed is: tests/durable/test_soak_small.py); SITEWALK_SOAK_SEED replays a run's faults. What an
inspection does, which faults it meets and what is counted: tests/durable/soak.py.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "durable"))
from soak import SHORT_LEASE, Soak, plan  # noqa: E402

from sitewalk_build.durable import DURABLE, DurableError, start_durable  # noqa: E402

N = int(os.environ.get("SITEWALK_SOAK_N", "200"))
BUDGET_S = float(os.environ.get("SITEWALK_SOAK_SECONDS", "1500"))
SEED = int(os.environ.get("SITEWALK_SOAK_SEED", str(int(time.time()))))


@pytest.fixture
def stack():
    home = DURABLE / "test-runs" / f"soak-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    try:
        server = start_durable(2, home=home, extra_env=SHORT_LEASE)
    except DurableError as exc:
        pytest.skip(f"durable server prerequisites missing: {exc}")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_soak(stack):
    soak = Soak(stack, SEED)
    seconds = asyncio.run(soak.run(plan(SEED, N), budget_s=BUDGET_S))
    print("\n" + soak.summary(SEED, seconds))
    tally = soak.tally
    assert tally["inspections"] > 0
    assert (tally["results_lost"], tally["duplicate_results"], tally["runs_stuck"]) == (0, 0, 0)
    assert tally["refused_duplicates"] == tally["duplicate_deliveries"]  # a second answer is refused (4xx)
    assert (tally["server_errors"], tally["stream_errors"]) == (0, 0)
