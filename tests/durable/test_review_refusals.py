"""Refused review decisions on Aegra on Postgres (the durable server): a thread in `error` can never be
resumed there, so a refused decision must leave it `interrupted`. The same scenarios as the in-memory
server's (tests/review_refusals_live.py), through the official Python SDK."""

from __future__ import annotations

import pytest
from durable_helpers import run
from review_refusals_live import contract_breaking_edit, repeated_decision, stale_decision

pytestmark = pytest.mark.durable


def test_a_contract_breaking_edit_is_refused_and_the_review_can_still_be_answered(durable_server):
    run(contract_breaking_edit(durable_server.url))


def test_a_stale_args_hash_is_refused_and_a_fresh_decision_then_runs(durable_server):
    run(stale_decision(durable_server.url))


def test_a_repeated_decision_runs_nothing_twice(durable_server):
    run(repeated_decision(durable_server.url))
