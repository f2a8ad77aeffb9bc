"""Shared fixtures. `agent_server`: one real agent server for the session, on a free port.

SITEWALK_SERVER picks which: `inmem` (default) is `langgraph dev`, started by build.py's
`start_agent_server` (the one way the project starts it); `aegra` is the durable server (Aegra on
Postgres, sitewalk_build.durable) in a cluster of its own under .durable/test-runs/, removed afterwards.
Set SITEWALK_AGENT_URL to use a server that is already running instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "py_src", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

SERVER_START_SECONDS: dict[str, float] = {}


@pytest.fixture(scope="session")
def workorders_db(tmp_path_factory):
    """The work-order database the agent server files into (SITEWALK_WORKORDERS_DB): a fresh file for the
    session, set in the environment before any server starts (it inherits it); a server given by
    SITEWALK_AGENT_URL is read through the SITEWALK_WORKORDERS_DB it was started with."""
    named = os.environ.get("SITEWALK_WORKORDERS_DB")
    if not named or not os.environ.get("SITEWALK_AGENT_URL"):
        named = str(tmp_path_factory.mktemp("workorders") / "workorders.sqlite3")
        os.environ["SITEWALK_WORKORDERS_DB"] = named
    return Path(named)


@pytest.fixture(scope="session")
def agent_server(workorders_db):
    """Base URL of a running agent server serving langgraph.json's graphs."""
    external = os.environ.get("SITEWALK_AGENT_URL")
    if external:
        yield external.rstrip("/")
        return
    if server_kind() == "aegra":
        yield from _durable_agent_server()
        return
    try:
        from build import start_agent_server
    except ImportError:  # build.py not in this checkout: the same command, started here
        start_agent_server = _start_agent_server

    started = time.monotonic()
    server = start_agent_server()
    SERVER_START_SECONDS["agent_server"] = time.monotonic() - started
    try:
        yield server.url
    finally:
        server.stop()


def server_kind() -> str:
    """Which agent server the session's `agent_server` is: SITEWALK_SERVER=inmem|aegra."""
    kind = os.environ.get("SITEWALK_SERVER", "inmem")
    if kind not in ("inmem", "aegra"):
        raise pytest.UsageError(f"SITEWALK_SERVER={kind!r}: expected inmem or aegra")
    return kind


def _durable_agent_server():
    """Aegra on a Postgres cluster of its own; a missing prerequisite skips (fails with SITEWALK_REQUIRE_DURABLE=1)."""
    from sitewalk_build.durable import DURABLE, DurableError, start_durable

    home = DURABLE / "test-runs" / f"agent-server-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    started = time.monotonic()
    try:
        stack = start_durable(1, home=home)
    except DurableError as exc:
        if os.environ.get("SITEWALK_REQUIRE_DURABLE") == "1":
            raise
        pytest.skip(f"durable server (SITEWALK_SERVER=aegra) cannot start: {exc}")
    SERVER_START_SECONDS["agent_server (aegra)"] = time.monotonic() - started
    try:
        yield stack.url
    finally:
        stack.stop()
        shutil.rmtree(home, ignore_errors=True)


class _Server:
    def __init__(self, process, url):
        self.process, self.url = process, url

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)


def _start_agent_server(port=None, timeout=120.0):
    """Fallback only; build.py's start_agent_server is the project's one way to start the server."""
    if port is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    exe = Path(sys.executable).with_name("langgraph")
    cmd = [str(exe) if exe.exists() else "langgraph", "dev", "--no-browser", "--no-reload",
           "--host", "127.0.0.1", "--port", str(port), "--config", "langgraph.json"]
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
           "LANGGRAPH_NO_VERSION_CHECK": "true"}
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    server = _Server(process, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(server.url + "/ok", timeout=2):
                return server
        except OSError:
            time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"agent server did not start (exit code {process.poll()})")


def pytest_terminal_summary(terminalreporter):
    for name, seconds in SERVER_START_SECONDS.items():
        terminalreporter.write_line(f"{name} started in {seconds:.2f} s")
