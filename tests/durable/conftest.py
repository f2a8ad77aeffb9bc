"""Fixtures for the durable server (Aegra on Postgres): one stack for the session, in a folder of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from durable_helpers import start_test_stack, stop_test_stack

from sitewalk_build.durable import DurableServer


def pytest_configure(config):
    config.addinivalue_line("markers", "durable: needs Postgres and Aegra (tests/durable)")


@pytest.fixture(scope="session")
def durable_server() -> Iterator[DurableServer]:
    """One Aegra server on its own Postgres cluster, for the session. `.url`, `.kill_server()`, ..."""
    stack = start_test_stack("session")
    try:
        yield stack
    finally:
        stop_test_stack(stack)


@pytest.fixture(scope="session", params=["inmem", "aegra"])
def signed_in_server(request, tmp_path_factory) -> Iterator[str]:
    """The URL of an agent server WITH sign-in (Ana's and Ben's tokens, signin_helpers), on each server:
    `langgraph dev` and Aegra. Shared by the modules that probe who may write what."""
    from agent_servers import serve_agent
    from signin_helpers import write_token_file

    tokens = write_token_file(tmp_path_factory.mktemp("signed-in"))
    yield from serve_agent(request.param, f"signed_in_{request.param}", env={"SITEWALK_TOKENS": str(tokens)})
