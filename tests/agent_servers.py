"""Starting the agent servers the tests talk to (importable: conftest.py files are not).

`serve_agent(kind, name, env)` yields the URL of a real agent server and stops it afterwards:
`inmem` is `langgraph dev`, started by build.py's `start_agent_server` (the one way the project starts
it); `aegra` is the durable server (Aegra on Postgres, sitewalk_build.durable) in a cluster of its own
under .durable/test-runs/, removed afterwards. `env` is added to the server's environment (e.g.
SITEWALK_TOKENS for sign-in). How long each took to start is kept for the session's summary.
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


def serve_agent(kind: str, name: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the URL of an agent server of this kind (`inmem`: langgraph dev, `aegra`: Aegra on a Postgres
    cluster of its own) started with `env` added to its environment; stopped when the generator ends."""
    if kind == "aegra":
        yield from _durable_agent_server(name, env)
        return
    started = time.monotonic()
    server = _starter()(env=env)
    SERVER_START_SECONDS[name] = time.monotonic() - started
    try:
        yield server.url
    finally:
        server.stop()


def _starter() -> Callable[..., Any]:
    try:
        from build import start_agent_server
    except ImportError:  # build.py not in this checkout: the same command, started here
        return _start_agent_server
    return start_agent_server


def _durable_agent_server(name: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Aegra on a Postgres cluster of its own; a missing prerequisite skips (fails with SITEWALK_REQUIRE_DURABLE=1)."""
    from sitewalk_build.durable import DURABLE, DurableError, start_durable

    home = DURABLE / "test-runs" / f"{name.replace('_', '-')}-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    started = time.monotonic()
    try:
        stack = start_durable(1, home=home, extra_env=env)
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


def _start_agent_server(port=None, timeout=120.0, env=None):
    """Fallback only; build.py's start_agent_server is the project's one way to start the server."""
    if port is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    exe = Path(sys.executable).with_name("langgraph")
    cmd = [str(exe) if exe.exists() else "langgraph", "dev", "--no-browser", "--no-reload",
           "--host", "127.0.0.1", "--port", str(port), "--config", "langgraph.json"]
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
           "LANGGRAPH_NO_VERSION_CHECK": "true", **(env or {})}
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
