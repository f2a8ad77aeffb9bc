"""Shared fixtures. `agent_server`: one real agent server for the session, on a free port;
`auth_server`: another, with sign-in (a token file), started when a test asks for it.
`standin` / `provider_server`: the provider stand-in, and an agent server whose model is a real provider
client talking to it (once per provider).

Under pytest-xdist (`./sw test` runs `-n`) every worker is a session of its own: its own servers on
their own ports and state folders, its own work-order database (under the worker's tmp folder).

SITEWALK_SERVER picks which kind: `inmem` (default) is `langgraph dev`, `aegra` the durable server
(see `agent_servers.serve_agent`). Set SITEWALK_AGENT_URL to use a server that is already running
instead of `agent_server`.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "py_src", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from agent_servers import SERVER_START_SECONDS, serve_agent, server_kind  # noqa: E402
from provider_standin import PROVIDERS, ProviderStandin  # noqa: E402


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
    yield from serve_agent(server_kind(), "agent_server")


@pytest.fixture(scope="session")
def standin():
    """The provider stand-in (tests/provider_standin): one loopback HTTP server speaking OpenAI's and
    Anthropic's streaming formats, recording every request."""
    with ProviderStandin() as running:
        yield running


@pytest.fixture(scope="module", params=PROVIDERS)
def provider_server(request, standin, workorders_db):
    """(provider, the URL of an agent server of the session's kind whose model is that provider's real
    LangChain client, talking to the stand-in); one per provider and test module."""
    name = f"{request.param}_{request.module.__name__.rsplit('.', 1)[-1]}"
    for url in serve_agent(server_kind(), name, env=standin.env(request.param)):
        yield request.param, url


@pytest.fixture(scope="session")
def auth_server(workorders_db, tmp_path_factory):
    """Base URL of a second agent server of the session's kind, WITH sign-in: the token file of
    `signin_helpers.INSPECTORS` (Ana and Ben) in SITEWALK_TOKENS."""
    from signin_helpers import write_token_file

    token_file = write_token_file(tmp_path_factory.mktemp("auth"))
    yield from serve_agent(server_kind(), "auth_server", env={"SITEWALK_TOKENS": str(token_file)})


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory):
    """A real trace backend for the session: Phoenix (`phoenix serve`) on a free loopback port, its data in a
    temporary folder; a `trace_backend.PhoenixBackend` (`url`, `otlp_url`, `spans()`, `wait_for(check)`)."""
    from trace_backend import PhoenixBackend

    from sitewalk_build.phoenix import start_phoenix

    server = start_phoenix(tmp_path_factory.mktemp("phoenix"))
    try:
        yield PhoenixBackend(server.url, server.otlp_url)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def traced_server(workorders_db, phoenix, tmp_path_factory):
    """Base URL of an agent server of the session's kind that traces into `phoenix`: SITEWALK_TRACES (and, on
    Aegra, its OTEL_TARGETS) set, the inspection graph served through its tracing factory (traced_config)."""
    from sitewalk_build.traces import traced_config, tracing_env

    config = traced_config(ROOT / "langgraph.json", tmp_path_factory.mktemp("traced") / "langgraph.json")
    env = {**tracing_env(phoenix.otlp_url, aegra=server_kind() == "aegra"), "OTEL_BSP_SCHEDULE_DELAY": "200"}
    yield from serve_agent(server_kind(), "traced_server", env=env, config=config)


@pytest.fixture(scope="session", autouse=True)
def delete_output_dir():
    """Overrides pytest-playwright's, which empties test-results/ in each session: under xdist a worker
    starting late would delete the screens another worker has saved. It is emptied once, below."""


def pytest_collection_modifyitems(items):
    """The e2e tests marked `long_wait` run first among the e2e tests. A worker takes its tests in
    collection order, so a test that spends most of a minute waiting (a throttled phone network, a
    stall or a timeout running out) started last would hold the run's end while the other workers
    sit idle; started first, the others' tests run beside it. Unit tests stay before every e2e test
    (docs/testing.md: a worker runs no asyncio.run() after Playwright)."""
    def e2e(item: pytest.Item) -> bool:
        return "e2e" in item.path.parts

    waiting = [i for i in items if e2e(i) and i.get_closest_marker("long_wait")]
    items[:] = ([i for i in items if not e2e(i)] + waiting
                + [i for i in items if e2e(i) and not i.get_closest_marker("long_wait")])


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the one process that is not an xdist worker
        shutil.rmtree(session.config.getoption("--output", "test-results"), ignore_errors=True)


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):  # hand the worker's start times to the controller
        session.config.workeroutput["server_start_seconds"] = dict(SERVER_START_SECONDS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(xdist controller) a worker ended: keep its servers' start times for the summary."""
    worker = node.gateway.id
    for name, seconds in getattr(node, "workeroutput", {}).get("server_start_seconds", {}).items():
        SERVER_START_SECONDS[f"{name} [{worker}]"] = seconds


def pytest_terminal_summary(terminalreporter):
    for name, seconds in SERVER_START_SECONDS.items():
        terminalreporter.write_line(f"{name} started in {seconds:.2f} s")
