"""The work-order database: one row per business key, the original order on a repeat, closing, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sitewalk_agent.demo.scripted_model import inspection_screen
from sitewalk_agent.workorders import WorkOrderError, WorkOrderNotFound, WorkOrders, substance_of, work_order_key

ROOT = Path(__file__).resolve().parents[2]
DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack", "rust"],
         "risk": "high"}


def key_of(draft=DRAFT, subject="risk-1"):
    return work_order_key(substance_of(draft["inspection_id"], subject, inspection_screen(draft)))


def test_create_twice_files_one_row_and_returns_the_original(tmp_path):
    orders = WorkOrders(tmp_path / "wo.sqlite3")
    first, created = orders.create("work-order:inspection-42:risk-1", subject="risk-1", thread_id="t1",
                                   checkpoint_id="c1")
    again, created_again = orders.create("work-order:inspection-42:risk-1", subject="risk-1", thread_id="t2",
                                         checkpoint_id="c9")
    assert created and not created_again
    assert again == first  # the original: same id, thread and checkpoint
    assert first["id"].startswith("WO-") and first["status"] == "open"
    assert [o["id"] for o in orders.orders()] == [first["id"]]


def test_concurrent_creates_from_separate_connections_file_one_row(tmp_path):
    path = tmp_path / "wo.sqlite3"
    WorkOrders(path).orders()  # the table exists before the race

    def create(i):
        return WorkOrders(path).create("work-order:inspection-42:risk-1", subject="risk-1", thread_id=f"t{i}")

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(create, range(16)))
    assert sum(created for _, created in results) == 1
    assert len({order["id"] for order, _ in results}) == 1
    assert len(WorkOrders(path).orders()) == 1


def test_concurrent_creates_from_separate_processes_file_one_row(tmp_path):
    path = tmp_path / "wo.sqlite3"
    code = ("import sys, json; from sitewalk_agent.workorders import WorkOrders; "
            "o, c = WorkOrders(sys.argv[1]).create('work-order:x:risk-1', subject='risk-1'); "
            "print(json.dumps([o['id'], c]))")
    env = {"PYTHONPATH": str(ROOT / "py_src")}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(4)]
    answers = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert sum(created for _, created in answers) == 1 and len({i for i, _ in answers}) == 1
    assert len(WorkOrders(path).orders()) == 1


def test_the_key_follows_the_substance_not_the_path():
    screen = inspection_screen(DRAFT)
    same = inspection_screen({**DRAFT, "findings": ["rust", "crack"]})  # order of findings is not substance
    same["identity"] = {"tool_call_id": "call_other", "revision": 7}  # nor which screen or branch
    assert key_of() == work_order_key(substance_of("inspection-42", "risk-1", same))
    assert key_of().startswith("work-order:inspection-42:risk-1:high:")
    assert key_of({**DRAFT, "risk": "critical"}) != key_of()  # a changed risk is another order
    assert key_of({**DRAFT, "findings": ["crack", "rust", "bolt"]}) != key_of()
    assert key_of(subject="risk-2") != key_of()
    assert key_of({**DRAFT, "inspection_id": "inspection-43"}) != key_of()
    assert substance_of("inspection-42", "risk-1", screen) == {
        "inspection_id": "inspection-42", "subject": "risk-1", "risk": "high", "findings": ["crack", "rust"]}


def test_close_is_recorded_once_with_who_and_when(tmp_path):
    orders = WorkOrders(tmp_path / "wo.sqlite3")
    order, _ = orders.create("work-order:inspection-42:risk-1", subject="risk-1")
    closed, changed = orders.close(order["id"], closed_by="Ana", thread_id="t1", checkpoint_id="c5")
    assert changed and closed["status"] == "closed" and closed["closed_by"] == "Ana" and closed["closed_at"]
    again, changed_again = orders.close(order["key"], closed_by="Bo")
    assert not changed_again and again == closed  # the first closing stays
    recreated, created = orders.create(order["key"], subject="risk-1")  # a closed order is not filed again
    assert not created and recreated["status"] == "closed"
    with pytest.raises(WorkOrderNotFound):
        orders.close("WO-NOPE", closed_by="Ana")


@pytest.mark.parametrize("key", ["", "   ", "x" * 301])
def test_a_bad_key_is_refused_and_nothing_is_written(tmp_path, key):
    orders = WorkOrders(tmp_path / "wo.sqlite3")
    with pytest.raises(WorkOrderError):
        orders.create(key, subject="risk-1")
    assert orders.orders() == []


def test_the_path_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "named.sqlite3"))
    assert WorkOrders().path == tmp_path / "named.sqlite3"
    monkeypatch.delenv("SITEWALK_WORKORDERS_DB")
    assert WorkOrders().path.parent.name == ".langgraph_api"


def test_cli_lists_one_json_object_a_line(tmp_path):
    path = tmp_path / "wo.sqlite3"
    orders = WorkOrders(path)
    first, _ = orders.create("work-order:inspection-42:risk-1", subject="risk-1", thread_id="t1", checkpoint_id="c1")
    orders.create("work-order:inspection-42:risk-2", subject="risk-2", thread_id="t1", checkpoint_id="c2")
    orders.close(first["id"], closed_by="Ana")
    env = {"PYTHONPATH": str(ROOT / "py_src"), "SITEWALK_WORKORDERS_DB": str(path)}
    out = subprocess.run([sys.executable, "-m", "sitewalk_agent.workorders", "list"], capture_output=True, text=True,
                         env=env, check=True, timeout=60).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(o["key"], o["status"], o["checkpoint_id"]) for o in lines] == [
        ("work-order:inspection-42:risk-1", "closed", "c1"), ("work-order:inspection-42:risk-2", "open", "c2")]
    assert {"key", "id", "status", "thread_id", "checkpoint_id", "created_at"} <= set(lines[0])
    assert lines[0]["id"] == first["id"] and lines[0]["created_at"]


def test_a_database_from_before_the_priority_column_is_migrated_on_first_use(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE work_orders (key TEXT NOT NULL UNIQUE, id TEXT NOT NULL UNIQUE, status TEXT NOT "
                    "NULL, subject TEXT NOT NULL, substance TEXT NOT NULL, thread_id TEXT, checkpoint_id TEXT, "
                    "created_at TEXT NOT NULL, closed_at TEXT, closed_by TEXT, closed_thread_id TEXT, "
                    "closed_checkpoint_id TEXT)")
        old.execute("INSERT INTO work_orders VALUES ('k-old', 'WO-OLD', 'open', 's', '{}', NULL, NULL, 'then', NULL, "
                    "NULL, NULL, NULL)")
    orders = WorkOrders(path)
    assert orders.get("k-old")["priority"] is None
    made, _ = orders.create("k-new", subject="bolt", priority="urgent")
    assert made["priority"] == "urgent" and [o["key"] for o in orders.orders()] == ["k-old", "k-new"]


def test_a_slow_system_files_late_and_the_latency_is_bounded(tmp_path, monkeypatch):
    import time

    from sitewalk_agent.workorders import latency_s, simulated_latency

    monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "200")
    started = time.monotonic()
    WorkOrders(tmp_path / "wo.sqlite3").create("k", subject="s")
    assert time.monotonic() - started >= 0.2
    token = simulated_latency.set(1e9)  # a run's own latency wins over the environment, and is bounded
    try:
        assert latency_s() == 60.0
    finally:
        simulated_latency.reset(token)
    monkeypatch.setenv("SITEWALK_WORKORDERS_LATENCY_MS", "soon")
    assert latency_s() == 0.0
