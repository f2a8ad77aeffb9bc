"""Shared fixtures. `agent_server`: one real `langgraph dev` for the session, on a free port.

The server is started by build.py's `start_agent_server` (the one way the project starts it);
set SITEWALK_AGENT_URL to use a server that is already running instead.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "py_src", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

SERVER_START_SECONDS: dict[str, float] = {}


@pytest.fixture(scope="session")
def agent_server():
    """Base URL of a running agent server serving langgraph.json's graphs."""
    external = os.environ.get("SITEWALK_AGENT_URL")
    if external:
        yield external.rstrip("/")
        return
    from build import start_agent_server

    started = time.monotonic()
    server = start_agent_server()
    SERVER_START_SECONDS["agent_server"] = time.monotonic() - started
    try:
        yield server.url
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter):
    for name, seconds in SERVER_START_SECONDS.items():
        terminalreporter.write_line(f"{name} started in {seconds:.2f} s")
