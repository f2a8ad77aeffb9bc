"""Which work-order ledger a server files into: chosen here, in one place, from the environment.

The rule (docs/operating.md says the same):

1. `SITEWALK_LEDGER_URL` set (not empty): a `postgresql://` or `postgres://` URL (a `+driver` suffix,
   e.g. `postgresql+asyncpg://`, is allowed and dropped) → Postgres, that database; the word `sqlite`
   → SQLite; anything else is refused (`WorkOrderUnavailable`, nothing filed).
2. Else `DATABASE_URL` (the variable the durable server, Aegra, reads its own database from) when it is
   a Postgres URL → Postgres, the durable server's own database.
3. Else SQLite (`SITEWALK_WORKORDERS_DB`, see `db.default_path`): the embedded default, e.g. `langgraph dev`.

Aegra's `POSTGRES_*` variables alone are not read: a deployment that uses them sets `SITEWALK_LEDGER_URL`.
Postgres is what makes the business key hold across machines (`postgres`); SQLite holds it on one disk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from sitewalk_agent.workorders.db import WorkOrder, WorkOrders, WorkOrderUnavailable

__all__ = ["FALLBACK_ENV", "LEDGER_ENV", "WorkOrderLedger", "ledger_url", "open_work_orders"]

LEDGER_ENV = "SITEWALK_LEDGER_URL"
FALLBACK_ENV = "DATABASE_URL"
SQLITE = "sqlite"
_POSTGRES_SCHEMES = ("postgresql", "postgres")


class WorkOrderLedger(Protocol):
    """What both ledgers offer: rows are `db.WorkOrder` dicts (`db.COLUMNS`); `create` returns (order, created)."""

    def create(self, key: str, *, subject: str, substance: str = ..., thread_id: str | None = ...,
               checkpoint_id: str | None = ..., priority: str | None = ...) -> tuple[WorkOrder, bool]: ...

    async def acreate(self, key: str, *, subject: str, substance: str = ..., thread_id: str | None = ...,
                      checkpoint_id: str | None = ..., priority: str | None = ...) -> tuple[WorkOrder, bool]: ...

    def close(self, key_or_id: str, *, closed_by: str, thread_id: str | None = ...,
              checkpoint_id: str | None = ...) -> tuple[WorkOrder, bool]: ...

    async def aclose(self, key_or_id: str, *, closed_by: str, thread_id: str | None = ...,
                     checkpoint_id: str | None = ...) -> tuple[WorkOrder, bool]: ...

    def get(self, key_or_id: str) -> WorkOrder | None: ...

    async def aget(self, key_or_id: str) -> WorkOrder | None: ...

    def orders(self) -> list[WorkOrder]: ...


def _postgres(url: str) -> str | None:
    """The URL as psycopg takes it (no `+driver`) when it names Postgres, else None."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+", 1)[0].lower() not in _POSTGRES_SCHEMES:
        return None
    return f"postgresql://{rest}"


def ledger_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The Postgres URL the ledger files into, or None for SQLite (the rule is the module's)."""
    env = os.environ if environ is None else environ
    explicit = env.get(LEDGER_ENV, "").strip()
    if explicit:
        if explicit.lower() == SQLITE:
            return None
        named = _postgres(explicit)
        if named is None:  # never echo the value: it may hold a password
            scheme = explicit.partition("://")[0] if "://" in explicit else "no scheme"
            raise WorkOrderUnavailable(f"{LEDGER_ENV} must be a postgresql:// URL or {SQLITE!r} (got {scheme!r})")
        return named
    return _postgres(env.get(FALLBACK_ENV, "").strip())


def open_work_orders(environ: Mapping[str, str] | None = None) -> WorkOrderLedger:
    """The ledger the environment names: Postgres (psycopg, imported only then) or SQLite."""
    url = ledger_url(environ)
    if url is None:
        return WorkOrders()
    try:
        from sitewalk_agent.workorders.postgres import PostgresWorkOrders
    except ImportError as exc:  # psycopg missing: the `postgres` extra is not installed
        raise WorkOrderUnavailable(f"the work-order ledger is on Postgres ({LEDGER_ENV} or {FALLBACK_ENV}) but psycopg "
                                   f"is not installed (pip install 'sitewalk-server[postgres]'): {exc}") from exc
    return PostgresWorkOrders(url)
