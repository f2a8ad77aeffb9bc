"""The work-order ledger on a real Postgres (sitewalk_agent.workorders.postgres): many concurrent claims of one
business key file one row and all get the original; closing, reading, the CLI, the backend chosen from
DATABASE_URL, and a database that does not answer (a typed error, nothing filed)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from durable_helpers import start_test_postgres

from sitewalk_agent.workorders import WorkOrder, WorkOrderUnavailable, open_work_orders
from sitewalk_agent.workorders.postgres import TABLE, PostgresWorkOrders
from sitewalk_build.ports import free_port

pytestmark = pytest.mark.durable
ROOT = Path(__file__).resolve().parents[2]
KEY = "work-order:inspection-pg:risk-1:0123456789ab"


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    part, url, layout = start_test_postgres("ledger-pg")
    try:
        yield url
    finally:
        part.stop()
        shutil.rmtree(layout.home, ignore_errors=True)


@pytest.fixture
def ledger(postgres_url: str) -> PostgresWorkOrders:
    """An empty table for each test (the first use creates it; racing creations: test_ledger_two_machines)."""
    ledger = PostgresWorkOrders(postgres_url)
    ledger.orders()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(f"TRUNCATE {TABLE}")
    return ledger


def _rows(url: str, key: str = KEY) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute(f"SELECT key, id FROM {TABLE} WHERE key = %s", (key,)).fetchall()


def test_many_concurrent_async_claims_of_one_key_file_one_row(ledger: PostgresWorkOrders, postgres_url: str) -> None:
    async def race() -> list[tuple[WorkOrder, bool]]:
        # separate ledgers and connections, as separate servers would have
        return await asyncio.gather(*(PostgresWorkOrders(postgres_url).acreate(
            KEY, subject="risk-1", thread_id=f"t{i}", checkpoint_id=f"c{i}") for i in range(24)))

    answers = asyncio.run(race())
    assert sum(created for _, created in answers) == 1
    [original] = [order for order, created in answers if created]
    assert all(order == original for order, _ in answers)  # every caller got the original, unchanged
    assert _rows(postgres_url) == [(KEY, original["id"])]


def test_many_concurrent_claims_from_threads_file_one_row(ledger: PostgresWorkOrders, postgres_url: str) -> None:
    def claim(i: int) -> tuple[WorkOrder, bool]:
        return PostgresWorkOrders(postgres_url).create(KEY, subject="risk-1", thread_id=f"t{i}")

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(claim, range(24)))
    assert sum(created for _, created in answers) == 1
    assert len({order["id"] for order, _ in answers}) == 1
    assert len(_rows(postgres_url)) == 1


def test_a_repeat_returns_the_original_and_close_is_the_compensation(ledger: PostgresWorkOrders) -> None:
    first, created = ledger.create(KEY, subject="risk-1", thread_id="t1", checkpoint_id="c1", priority="high")
    again, created_again = ledger.create(KEY, subject="other", thread_id="t2", checkpoint_id="c9", priority="low")
    assert created and not created_again and again == first
    assert (first["status"], first["priority"], first["thread_id"]) == ("open", "high", "t1")
    closed, did = ledger.close(first["id"], closed_by="Ana", thread_id="t3")
    assert did and closed["status"] == "closed" and closed["closed_by"] == "Ana"
    again_closed, did_again = asyncio.run(ledger.aclose(KEY, closed_by="Ben"))
    assert not did_again and again_closed["closed_by"] == "Ana"  # the first close stays
    assert ledger.get(KEY) == asyncio.run(ledger.aget(first["id"])) == again_closed
    second, _ = ledger.create(KEY + "-2", subject="risk-2")
    assert [o["id"] for o in ledger.orders()] == [first["id"], second["id"]]  # oldest first


def test_the_backend_follows_database_url_and_the_cli_reads_it(ledger: PostgresWorkOrders, postgres_url: str,
                                                               tmp_path: Path) -> None:
    chosen = open_work_orders({"DATABASE_URL": postgres_url.replace("postgresql://", "postgresql+asyncpg://")})
    assert isinstance(chosen, PostgresWorkOrders)
    order, _ = chosen.create(KEY, subject="risk-1")
    env = {**os.environ, "SITEWALK_LEDGER_URL": "", "DATABASE_URL": postgres_url,
           "SITEWALK_WORKORDERS_DB": str(tmp_path / "unused.sqlite3")}
    listed = subprocess.run([sys.executable, "-m", "sitewalk_agent.workorders", "list"], capture_output=True,
                            text=True, env=env, cwd=ROOT, timeout=60, check=True).stdout
    assert [json.loads(line)["id"] for line in listed.splitlines()] == [order["id"]]
    assert not (tmp_path / "unused.sqlite3").exists()  # nothing went to SQLite


def test_a_database_that_does_not_answer_is_a_typed_error(postgres_url: str) -> None:
    nowhere = f"postgresql://sitewalk:wrong@127.0.0.1:{free_port()}/aegra"
    with pytest.raises(WorkOrderUnavailable, match="the work-order database \\(Postgres\\) failed"):
        PostgresWorkOrders(nowhere).create(KEY, subject="risk-1")
    with pytest.raises(WorkOrderUnavailable):
        asyncio.run(PostgresWorkOrders(nowhere).aget(KEY))
    assert "wrong" not in repr(PostgresWorkOrders(nowhere))  # the password is never shown
