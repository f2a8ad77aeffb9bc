"""The work-order ledger on Postgres: one table every durable server files into, keyed by business key.

Two durable servers on two machines share nothing but Postgres. With a ledger on each server's disk,
a replay on one and a fork on the other would each file the same business key once: two real orders.
Here the table `sitewalk_work_orders` (in the database the URL names, beside Aegra's own tables) has the
business key as its PRIMARY KEY, and filing is a claim in two statements:

    INSERT ... ON CONFLICT (key) DO NOTHING     -- files only if no row has the key; a racing insert of
                                                -- the same key waits for the first and does nothing
    SELECT ... WHERE key = %s                   -- the stored row: the ORIGINAL order, whoever filed it

so any number of servers racing one key file one order and all get it back (`created` is true for
exactly one caller). Rows are the same dicts as the SQLite ledger's (`db.COLUMNS`).

Hand-written, not LangGraph's store: the store (`BaseStore`: get, put, search, delete) has no
compare-and-set. `put` overwrites, so a get-then-put from two servers can file twice; an atomic
insert-unless-present needs the database's own constraint. psycopg 3 is the driver (Aegra's venv has
it; the project's `postgres` extra); the graph's calls (`a…`) use its async connection, so nothing
blocks the server's event loop. Every call opens its own connection (autocommit), as the SQLite ledger
does; the table is created on a URL's first use, under an advisory lock so two servers starting at
once do not race on `CREATE TABLE`. A driver error becomes `WorkOrderUnavailable` (nothing was filed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import psycopg
from psycopg.rows import TupleRow

from sitewalk_agent.workorders.db import (
    COLUMNS,
    COLUMNS_AFTER_KEY_DDL,
    WorkOrder,
    WorkOrderNotFound,
    WorkOrderUnavailable,
    as_order,
    check_key,
    latency_s,
    new_order_id,
    now,
)

__all__ = ["TABLE", "PostgresWorkOrders"]

TABLE = "sitewalk_work_orders"
_LOCK = 0x5357_574F  # pg_advisory_xact_lock id while creating the table ("SWWO")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    seq BIGSERIAL NOT NULL,
    key TEXT PRIMARY KEY,
{COLUMNS_AFTER_KEY_DDL})
"""
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM {TABLE}"
_CLAIM = (f"INSERT INTO {TABLE} (key, id, status, subject, substance, thread_id, checkpoint_id, created_at, "
          "priority) VALUES (%s, %s, 'open', %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO NOTHING")
_CLOSE = (f"UPDATE {TABLE} SET status = 'closed', closed_at = %s, closed_by = %s, closed_thread_id = %s, "
          "closed_checkpoint_id = %s WHERE {where} = %s AND status = 'open'")
_CONNECT_TIMEOUT_S = 10
_ready: set[str] = set()  # URLs whose table exists (created or checked by this process)


def _where(key_or_id: str) -> str:
    return "id" if key_or_id.startswith("WO-") else "key"


def _row(found: TupleRow | None) -> WorkOrder | None:
    return as_order(found) if found else None


def _unavailable(exc: psycopg.Error) -> WorkOrderUnavailable:
    return WorkOrderUnavailable(f"the work-order database (Postgres) failed: {type(exc).__name__}: {exc}")


class PostgresWorkOrders:
    """The ticket system's table on Postgres (rows are plain dicts, JSON-ready), for one database URL."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __repr__(self) -> str:  # never the URL: it holds the password
        return f"PostgresWorkOrders(table={TABLE!r})"

    # -- connections ---------------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[psycopg.Connection[TupleRow]]:
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_S) as connection:
                if self.url not in _ready:
                    with connection.transaction():
                        connection.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                        connection.execute(_SCHEMA)
                    _ready.add(self.url)
                yield connection
        except psycopg.Error as exc:
            raise _unavailable(exc) from exc

    @asynccontextmanager
    async def _aconnect(self) -> AsyncIterator[psycopg.AsyncConnection[TupleRow]]:
        try:
            async with await psycopg.AsyncConnection.connect(self.url, autocommit=True,
                                                             connect_timeout=_CONNECT_TIMEOUT_S) as connection:
                if self.url not in _ready:
                    async with connection.transaction():
                        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                        await connection.execute(_SCHEMA)
                    _ready.add(self.url)
                yield connection
        except psycopg.Error as exc:
            raise _unavailable(exc) from exc

    # -- the claim, closing, reading (sync: the CLI and tests; async: the graph) ---------------------

    def create(self, key: str, *, subject: str, substance: str = "{}", thread_id: str | None = None,
               checkpoint_id: str | None = None, priority: str | None = None) -> tuple[WorkOrder, bool]:
        """File the order for `key` once: (the order, whether this call created it). See the module."""
        check_key(key)
        values = (key, new_order_id(), subject, substance, thread_id, checkpoint_id, now(), priority)
        delay = latency_s()
        if delay:  # a slow ticket system: the request is in flight
            time.sleep(delay)
        with self._connect() as connection:
            created = connection.execute(_CLAIM, values).rowcount == 1
            order = _row(connection.execute(f"{_SELECT} WHERE key = %s", (key,)).fetchone())
        assert order is not None  # inserted now or before; rows are never deleted
        return order, created

    async def acreate(self, key: str, *, subject: str, substance: str = "{}", thread_id: str | None = None,
                      checkpoint_id: str | None = None, priority: str | None = None) -> tuple[WorkOrder, bool]:
        check_key(key)
        values = (key, new_order_id(), subject, substance, thread_id, checkpoint_id, now(), priority)
        delay = latency_s()
        if delay:
            await asyncio.sleep(delay)
        async with self._aconnect() as connection:
            created = (await connection.execute(_CLAIM, values)).rowcount == 1
            order = _row(await (await connection.execute(f"{_SELECT} WHERE key = %s", (key,))).fetchone())
        assert order is not None
        return order, created

    def close(self, key_or_id: str, *, closed_by: str, thread_id: str | None = None,
              checkpoint_id: str | None = None) -> tuple[WorkOrder, bool]:
        """Close an order (the compensation of filing it): (the order, whether this call closed it)."""
        where = _where(key_or_id)
        with self._connect() as connection:
            closed = connection.execute(_CLOSE.format(where=where),
                                        (now(), closed_by, thread_id, checkpoint_id, key_or_id)).rowcount == 1
            order = _row(connection.execute(f"{_SELECT} WHERE {where} = %s", (key_or_id,)).fetchone())
        if order is None:
            raise WorkOrderNotFound(f"no work order {key_or_id!r}")
        return order, closed

    async def aclose(self, key_or_id: str, *, closed_by: str, thread_id: str | None = None,
                     checkpoint_id: str | None = None) -> tuple[WorkOrder, bool]:
        where = _where(key_or_id)
        async with self._aconnect() as connection:
            cursor = await connection.execute(_CLOSE.format(where=where),
                                              (now(), closed_by, thread_id, checkpoint_id, key_or_id))
            closed = cursor.rowcount == 1
            order = _row(await (await connection.execute(f"{_SELECT} WHERE {where} = %s", (key_or_id,))).fetchone())
        if order is None:
            raise WorkOrderNotFound(f"no work order {key_or_id!r}")
        return order, closed

    def get(self, key_or_id: str) -> WorkOrder | None:
        with self._connect() as connection:
            return _row(connection.execute(f"{_SELECT} WHERE {_where(key_or_id)} = %s", (key_or_id,)).fetchone())

    async def aget(self, key_or_id: str) -> WorkOrder | None:
        async with self._aconnect() as connection:
            cursor = await connection.execute(f"{_SELECT} WHERE {_where(key_or_id)} = %s", (key_or_id,))
            return _row(await cursor.fetchone())

    def orders(self) -> list[WorkOrder]:
        """Every order, oldest first."""
        with self._connect() as connection:
            rows = connection.execute(f"{_SELECT} ORDER BY seq").fetchall()
        return [as_order(row) for row in rows]
