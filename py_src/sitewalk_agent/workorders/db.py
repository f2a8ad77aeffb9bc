"""The work-order database on SQLite (stdlib `sqlite3`): the embedded default ledger, keyed by business key.

The durable deployment uses Postgres instead (`sitewalk_agent.workorders.postgres`); which one is chosen
in one place, `sitewalk_agent.workorders.backend.open_work_orders`. This module also holds what both share:
the columns of a row, the key rule, the order id and timestamp, the simulated latency.

Path: `SITEWALK_WORKORDERS_DB`, else `.langgraph_api/sitewalk-workorders.sqlite3` in the project
(next to the dev server's own state). Every call opens its own connection, so the database is
safe to share between threads and processes; `create` is one `INSERT … ON CONFLICT(key) DO
NOTHING` followed by a `SELECT`, so two concurrent creates of one key file one order and both get
it. The `a…` methods run the same calls in a worker thread (`asyncio.to_thread`): the agent server
treats blocking calls on its event loop as errors.

A slow ticket system, for tests and demos: `SITEWALK_WORKORDERS_LATENCY_MS` (or `simulated_latency`,
a context variable a run can set; see `sitewalk_agent.graph`) makes `create` take that long before it
files the order, as a remote system whose request is in flight. A caller that gives up waiting (the
reviewed tool's timeout) does not stop it: the order lands later, which is exactly the case that
`outcome_unknown` and reconciliation by key are for (`sitewalk_agent.field_actions`).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict, cast

from sitewalk_shared.errors import SitewalkError

__all__ = ["COLUMNS", "COLUMNS_AFTER_KEY_DDL", "WorkOrder", "WorkOrderError", "WorkOrderNotFound",
           "WorkOrderUnavailable", "WorkOrders", "as_order", "check_key", "default_path", "latency_s", "new_order_id",
           "now", "simulated_latency"]

ENV = "SITEWALK_WORKORDERS_DB"
LATENCY_ENV = "SITEWALK_WORKORDERS_LATENCY_MS"
MAX_LATENCY_S = 60.0
simulated_latency: ContextVar[float | None] = ContextVar("sitewalk_workorders_latency", default=None)
"""Seconds a `create` in this context waits before filing (None: `SITEWALK_WORKORDERS_LATENCY_MS`, else 0)."""
_PROJECT = Path(__file__).resolve().parents[3]

# The columns after the key, the same in SQLite and in Postgres (postgres.py), whose keys differ.
COLUMNS_AFTER_KEY_DDL = """\
    id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    subject TEXT NOT NULL,
    substance TEXT NOT NULL,
    thread_id TEXT,
    checkpoint_id TEXT,
    created_at TEXT NOT NULL,
    closed_at TEXT,
    closed_by TEXT,
    closed_thread_id TEXT,
    closed_checkpoint_id TEXT,
    priority TEXT
"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS work_orders (
    key TEXT NOT NULL UNIQUE,
{COLUMNS_AFTER_KEY_DDL})
"""
COLUMNS = ("key", "id", "status", "subject", "substance", "thread_id", "checkpoint_id", "created_at",
            "closed_at", "closed_by", "closed_thread_id", "closed_checkpoint_id", "priority")
_ADDED = {"priority": "TEXT"}  # columns newer than some databases on disk: added on first use


class WorkOrder(TypedDict):
    """A row of the ledger (`COLUMNS`), as both backends give it: a plain, JSON-ready dict."""

    key: str
    id: str
    status: str  # open | closed
    subject: str
    substance: str  # canonical JSON
    thread_id: str | None
    checkpoint_id: str | None
    created_at: str
    closed_at: str | None
    closed_by: str | None
    closed_thread_id: str | None
    closed_checkpoint_id: str | None
    priority: str | None


def as_order(row: Sequence[object]) -> WorkOrder:
    """A database row of `COLUMNS` as its WorkOrder: the one place either backend's rows become typed (the
    schema's column types are the TypedDict's)."""
    return cast(WorkOrder, dict(zip(COLUMNS, row, strict=True)))


class WorkOrderError(SitewalkError, ValueError):
    """A request the ticket system refuses (bad key, unknown order)."""


class WorkOrderNotFound(WorkOrderError):
    """No work order has that key or id."""


class WorkOrderUnavailable(WorkOrderError):
    """The ticket system cannot be reached or is misconfigured: nothing was filed or changed."""


def default_path() -> Path:
    """`SITEWALK_WORKORDERS_DB`, else the project's `.langgraph_api/sitewalk-workorders.sqlite3`."""
    named = os.environ.get(ENV, "").strip()
    return Path(named) if named else _PROJECT / ".langgraph_api" / "sitewalk-workorders.sqlite3"


def latency_s() -> float:
    """How long `create` waits before filing: the context's `simulated_latency`, else the environment's."""
    chosen = simulated_latency.get()
    if chosen is None:
        try:
            chosen = float(os.environ.get(LATENCY_ENV, "0") or 0) / 1000.0
        except ValueError:
            chosen = 0.0
    return min(max(chosen, 0.0), MAX_LATENCY_S)


def _migrate(connection: sqlite3.Connection) -> None:
    connection.execute(_SCHEMA)
    present = {row[1] for row in connection.execute("PRAGMA table_info(work_orders)")}
    for column, kind in _ADDED.items():
        if column not in present:
            try:
                connection.execute(f"ALTER TABLE work_orders ADD COLUMN {column} {kind}")
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc):
                    raise


def now() -> str:
    """A row's timestamp: UTC, milliseconds, ISO 8601 with a Z."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_key(key: str) -> None:
    """Refuse a key that is not 1 to 300 characters of text (every backend's rule)."""
    if not isinstance(key, str) or not key.strip() or len(key) > 300:
        raise WorkOrderError("a work order needs a business key (1 to 300 characters)")


def new_order_id() -> str:
    return f"WO-{uuid.uuid4().hex[:10].upper()}"


class WorkOrders:
    """The ticket system's table of work orders (rows are plain dicts, JSON-ready)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._ready = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)  # autocommit statements
        try:
            if not self._ready:
                _migrate(connection)
                self._ready = True
            yield connection
        finally:
            connection.close()

    def _select(self, connection: sqlite3.Connection, where: str, value: str) -> WorkOrder | None:
        row = connection.execute(f"SELECT {', '.join(COLUMNS)} FROM work_orders WHERE {where} = ?",
                                 (value,)).fetchone()
        return as_order(row) if row else None

    def create(self, key: str, *, subject: str, substance: str = "{}", thread_id: str | None = None,
               checkpoint_id: str | None = None, priority: str | None = None) -> tuple[WorkOrder, bool]:
        """File the order for `key` once: (the order, whether this call created it).

        An existing key returns the ORIGINAL order unchanged (its id, status, priority, thread and checkpoint)."""
        check_key(key)
        order_id = new_order_id()
        delay = latency_s()
        if delay:  # a slow ticket system: the request is in flight
            time.sleep(delay)
        with self._connect() as connection:
            cursor = connection.execute(
                "INSERT INTO work_orders (key, id, status, subject, substance, thread_id, checkpoint_id, created_at, "
                "priority) VALUES (?, ?, 'open', ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING",
                (key, order_id, subject, substance, thread_id, checkpoint_id, now(), priority))
            order = self._select(connection, "key", key)
        assert order is not None  # inserted now or before; rows are never deleted
        return order, cursor.rowcount == 1

    def close(self, key_or_id: str, *, closed_by: str, thread_id: str | None = None,
              checkpoint_id: str | None = None) -> tuple[WorkOrder, bool]:
        """Close an order (the compensation of filing it): (the order, whether this call closed it).

        Closing a closed order changes nothing: who closed it first, and when, stay."""
        where = "id" if key_or_id.startswith("WO-") else "key"
        with self._connect() as connection:
            cursor = connection.execute(
                f"UPDATE work_orders SET status = 'closed', closed_at = ?, closed_by = ?, closed_thread_id = ?, "
                f"closed_checkpoint_id = ? WHERE {where} = ? AND status = 'open'",
                (now(), closed_by, thread_id, checkpoint_id, key_or_id))
            order = self._select(connection, where, key_or_id)
        if order is None:
            raise WorkOrderNotFound(f"no work order {key_or_id!r}")
        return order, cursor.rowcount == 1

    def get(self, key_or_id: str) -> WorkOrder | None:
        with self._connect() as connection:
            return self._select(connection, "id" if key_or_id.startswith("WO-") else "key", key_or_id)

    def orders(self) -> list[WorkOrder]:
        """Every order, oldest first."""
        with self._connect() as connection:
            rows = connection.execute(f"SELECT {', '.join(COLUMNS)} FROM work_orders ORDER BY rowid").fetchall()
        return [as_order(row) for row in rows]

    async def acreate(self, key: str, *, subject: str, substance: str = "{}", thread_id: str | None = None,
                      checkpoint_id: str | None = None, priority: str | None = None) -> tuple[WorkOrder, bool]:
        return await asyncio.to_thread(self.create, key, subject=subject, substance=substance, thread_id=thread_id,
                                       checkpoint_id=checkpoint_id, priority=priority)

    async def aget(self, key_or_id: str) -> WorkOrder | None:
        return await asyncio.to_thread(self.get, key_or_id)

    async def aclose(self, key_or_id: str, *, closed_by: str, thread_id: str | None = None,
                     checkpoint_id: str | None = None) -> tuple[WorkOrder, bool]:
        return await asyncio.to_thread(self.close, key_or_id, closed_by=closed_by, thread_id=thread_id,
                                       checkpoint_id=checkpoint_id)
