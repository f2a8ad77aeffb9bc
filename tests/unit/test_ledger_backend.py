"""Which work-order ledger the environment names (sitewalk_agent.workorders.backend): SITEWALK_LEDGER_URL, else
a Postgres DATABASE_URL, else SQLite; a bad value is a typed error that never shows the value."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sitewalk_agent.actions import ActionLedger, answer_press
from sitewalk_agent.workorders import WorkOrders, WorkOrderUnavailable, ledger_url, open_work_orders
from sitewalk_agent.workorders.postgres import PostgresWorkOrders

PG = "postgresql://u:secret@127.0.0.1:5432/aegra"


@pytest.mark.parametrize(("env", "expected"), [
    ({}, None),
    ({"DATABASE_URL": PG}, PG),
    ({"DATABASE_URL": "postgres://u:secret@h/db"}, "postgresql://u:secret@h/db"),
    ({"DATABASE_URL": "postgresql+asyncpg://u:secret@h:1/db"}, "postgresql://u:secret@h:1/db"),
    ({"DATABASE_URL": "sqlite:///somewhere.db"}, None),  # not Postgres: the SQLite default
    ({"DATABASE_URL": "mysql://u@h/db"}, None),
    ({"SITEWALK_LEDGER_URL": PG}, PG),
    ({"SITEWALK_LEDGER_URL": "postgresql://other/ledger", "DATABASE_URL": PG}, "postgresql://other/ledger"),
    ({"SITEWALK_LEDGER_URL": "sqlite", "DATABASE_URL": PG}, None),  # explicitly SQLite, whatever DATABASE_URL
    ({"SITEWALK_LEDGER_URL": "SQLite", "DATABASE_URL": PG}, None),
    ({"SITEWALK_LEDGER_URL": "  ", "DATABASE_URL": PG}, PG),  # empty is unset
])
def test_the_ledger_url_follows_the_rule(env: dict[str, str], expected: str | None) -> None:
    assert ledger_url(env) == expected


@pytest.mark.parametrize("value", ["mysql://u:secret@h/db", "secret-without-scheme", "http://u:secret@h/"])
def test_a_ledger_url_that_is_not_postgres_is_refused_without_showing_it(value: str) -> None:
    with pytest.raises(WorkOrderUnavailable, match="SITEWALK_LEDGER_URL must be a postgresql:// URL") as refused:
        ledger_url({"SITEWALK_LEDGER_URL": value, "DATABASE_URL": PG})
    assert "secret" not in str(refused.value)


def test_open_work_orders_gives_the_named_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "wo.sqlite3"))
    sqlite = open_work_orders({})
    assert isinstance(sqlite, WorkOrders) and sqlite.path == tmp_path / "wo.sqlite3"
    postgres = open_work_orders({"DATABASE_URL": PG})
    assert isinstance(postgres, PostgresWorkOrders) and postgres.url == PG
    assert "secret" not in repr(postgres)


def test_the_process_environment_is_read_when_none_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEWALK_LEDGER_URL", "")
    monkeypatch.setenv("DATABASE_URL", PG)
    assert isinstance(open_work_orders(), PostgresWorkOrders)
    monkeypatch.delenv("DATABASE_URL")
    assert isinstance(open_work_orders(), WorkOrders)


def test_a_misconfigured_ledger_is_a_failed_press_not_a_failed_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEWALK_LEDGER_URL", "mysql://u:secret@h/db")
    spec = {"root": "card", "identity": {"tool_call_id": "call-1", "revision": 1}, "elements": {
        "card": {"type": "Stack", "props": {}, "children": ["confirm"]},
        "confirm": {"type": "ConfirmButton", "props": {"label": "File", "action": "create_work_order",
                                                        "subject": "risk-1"}, "children": []}}}
    press = {"type": "ui_action", "action": "create_work_order", "identity": spec["identity"],
             "element_id": "confirm", "idempotency_key": "ui:call-1:confirm:create_work_order"}
    update, said = asyncio.run(answer_press({"ui_spec": spec, "inspection_id": "inspection-1"}, press,
                                            ActionLedger()))
    result = update["ui_action_result"]
    assert result["status"] == "failed" and "SITEWALK_LEDGER_URL must be" in result["reason"] and said == ""
    assert "ui_actions" not in update  # nothing recorded as done


def test_the_durable_servers_venv_gets_the_postgres_driver() -> None:
    from sitewalk_build.durable_install import _server_deps

    deps = _server_deps()
    assert any(d.startswith("psycopg[binary]") for d in deps)  # the `postgres` extra
    assert not any(d.startswith("langgraph-cli") for d in deps)  # the in-memory server's CLI stays out
