"""Starting the agent servers the tests talk to (importable: conftest.py files are not).

`serve_agent(kind, name, env)` yields the URL of a real agent server and stops it afterwards:
`inmem` is `langgraph dev`, started by build.py's `start_agent_server` (the one way the project starts
it) in a state folder of its own; `aegra` is the durable server (Aegra on Postgres, sitewalk_build.durable)
in a cluster of its own under .durable/test-runs/, removed afterwards. `env` is added to the server's environment (e.g.
SITEWALK_TOKENS for sign-in). How long each took to start is kept for the session's summary.

The tests read a server's work orders from the SQLite file of the session (`workorders_db`), so an Aegra
server started here keeps its ledger there (SITEWALK_LEDGER_URL=sqlite) instead of its Postgres; the
Postgres ledger is tested by tests/durable (test_ledger_postgres.py, and the stacks of durable_helpers).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVER_START_SECONDS: dict[str, float] = {}

__all__ = ["SERVER_START_SECONDS", "serve_agent", "server_kind"]


def server_kind() -> str:
    """Which agent server the session's `agent_server` is: SITEWALK_SERVER=inmem|aegra."""
    kind = os.environ.get("SITEWALK_SERVER", "inmem")
    if kind not in ("inmem", "aegra"):
        raise pytest.UsageError(f"SITEWALK_SERVER={kind!r}: expected inmem or aegra")
    return kind


def serve_agent(kind: str, name: str, env: dict[str, str] | None = None,
                config: Path | None = None) -> Iterator[str]:
    """Yield the URL of an agent server of this kind (`inmem`: langgraph dev, `aegra`: Aegra on a Postgres
    cluster of its own) started with `env` added to its environment (and `config` instead of langgraph.json);
    stopped when the generator ends."""
    if kind == "aegra":
        yield from _durable_agent_server(name, env, config)
        return
    from build import start_agent_server

    # A folder of its own for the server's `.langgraph_api/` state and log: servers of parallel test
    # workers (pytest -n) share nothing, and a test run never touches the developer's threads.
    state = Path(tempfile.mkdtemp(prefix=f"sitewalk-{name.replace('_', '-')}-"))
    started = time.monotonic()
    server = start_agent_server(env=env, state_dir=state, config=config or "langgraph.json")
    SERVER_START_SECONDS[name] = time.monotonic() - started
    try:
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(state, ignore_errors=True)


def _durable_agent_server(name: str, env: dict[str, str] | None = None,
                          config: Path | None = None) -> Iterator[str]:
    """Aegra on a Postgres cluster of its own; a missing prerequisite skips (fails with SITEWALK_REQUIRE_DURABLE=1)."""
    from sitewalk_build.durable import DURABLE, DurableError, start_durable

    home = DURABLE / "test-runs" / f"{name.replace('_', '-')}-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    started = time.monotonic()
    try:
        stack = start_durable(1, home=home, extra_env={"SITEWALK_LEDGER_URL": "sqlite", **(env or {})},
                              config=config or "langgraph.json")
    except DurableError as exc:
        if os.environ.get("SITEWALK_REQUIRE_DURABLE") == "1":
            raise
        pytest.skip(f"durable server (SITEWALK_SERVER=aegra) cannot start: {exc}")
    SERVER_START_SECONDS[f"{name} (aegra)"] = time.monotonic() - started
    try:
        yield stack.url
    finally:
        stack.stop()
        shutil.rmtree(home, ignore_errors=True)
