"""`python -m sitewalk_agent.workorders list`: the work orders of the ledger the environment names (Postgres by
`SITEWALK_LEDGER_URL` or a Postgres `DATABASE_URL`, else SQLite by `SITEWALK_WORKORDERS_DB`), one JSON object a line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from sitewalk_agent.workorders.backend import ledger_url, open_work_orders
from sitewalk_agent.workorders.db import default_path

FIELDS = ("key", "id", "status", "subject", "priority", "thread_id", "checkpoint_id", "created_at", "closed_at",
          "closed_by")


def _where() -> str:
    return "Postgres" if ledger_url() else str(default_path())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitewalk_agent.workorders",
                                     description=f"Read Sitewalk's work orders (database: {_where()}).")
    parser.add_argument("command", choices=["list"], help="list: one JSON object a line, oldest first")
    parser.parse_args(argv)
    for order in open_work_orders().orders():
        sys.stdout.write(json.dumps({k: order.get(k) for k in FIELDS}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
