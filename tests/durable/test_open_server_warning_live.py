"""A real server without sign-in says it is open, once, in its log: `langgraph dev` at start, Aegra at
its first request (when each imports sitewalk_agent.auth). A server with a token file says nothing of it.

The decision itself is unit-tested (tests/unit/test_open_server_warning.py); this checks that the line
reaches each server's own log through its logging setup, and only once for several requests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from durable_helpers import start_test_stack, stop_test_stack
from signin_helpers import write_token_file

from sitewalk_agent.auth import OPEN_SERVER_WARNING, TOKENS_ENV
from sitewalk_build.agent_server import start_agent_server

pytestmark = pytest.mark.xdist_group("open-server-warning")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(params=["langgraph-dev", "aegra"])
def open_server(request, tmp_path, monkeypatch) -> Iterator[tuple[str, Path]]:
    """(URL, log file) of a server started without SITEWALK_TOKENS."""
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    yield from _server(request.param, tmp_path, {})


def _server(kind: str, tmp_path: Path, env: dict[str, str]) -> Iterator[tuple[str, Path]]:
    if kind == "aegra":
        stack = start_test_stack("open-warning", extra_env=env)
        try:
            yield stack.url, stack.log_path
        finally:
            stop_test_stack(stack)
        return
    server = start_agent_server(state_dir=tmp_path / "server", env=env)
    try:
        yield server.url, Path(server.log_path)
    finally:
        server.stop()


def _warnings(log: Path) -> list[str]:
    return [line for line in ANSI.sub("", log.read_text(errors="replace")).splitlines() if OPEN_SERVER_WARNING in line]


def _requests(url: str, n: int = 3) -> None:
    for _ in range(n):
        assert httpx.post(url + "/assistants/search", json={}, timeout=60).status_code == 200


def test_a_server_without_tokens_logs_the_warning_once(open_server):
    url, log = open_server
    _requests(url)
    [line] = _warnings(log)
    assert "warning" in line.lower() and "sitewalk_agent.auth" in line


def test_a_server_with_a_token_file_does_not(tmp_path):
    tokens = write_token_file(tmp_path)
    for url, log in _server("langgraph-dev", tmp_path, {TOKENS_ENV: str(tokens)}):
        assert httpx.post(url + "/assistants/search", json={}, timeout=60).status_code == 401
        assert _warnings(log) == []
