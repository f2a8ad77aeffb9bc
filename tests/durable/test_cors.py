"""CORS restricted to the site's origin (sitewalk_build.server_config), on both servers.

With the restricted config a page from the site's origin may call the server; a page from any
other origin gets no Access-Control-Allow-Origin, so the browser keeps every answer from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from durable_helpers import start_test_stack, stop_test_stack

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.server_config import restricted_config

pytestmark = pytest.mark.xdist_group("cors")  # one worker: servers started once for the module

SITE = "http://127.0.0.1:8000"
OTHER = "http://evil.example"


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> str:
    return str(restricted_config([SITE + "/"], out=tmp_path_factory.mktemp("cors") / "langgraph.json"))


@pytest.fixture(scope="module", params=["langgraph-dev", "aegra"])
def server_url(request, config) -> Iterator[str]:
    if request.param == "aegra":
        stack = start_test_stack("cors", config=config)
        try:
            yield stack.url
        finally:
            stop_test_stack(stack)
        return
    from build import start_agent_server

    server = start_agent_server(config=config)
    try:
        yield server.url
    finally:
        server.stop()


def preflight(url: str, origin: str) -> httpx.Response:
    headers = {"Origin": origin, "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "content-type"}
    return httpx.options(url + "/threads", headers=headers, timeout=30)


def test_only_the_site_origin_is_allowed(server_url):
    assert preflight(server_url, SITE).headers.get("access-control-allow-origin") == SITE
    assert "access-control-allow-origin" not in preflight(server_url, OTHER).headers
    info = httpx.get(server_url + "/info", headers={"Origin": OTHER}, timeout=30)
    assert info.status_code == 200 and "access-control-allow-origin" not in info.headers
    info = httpx.get(server_url + "/info", headers={"Origin": SITE}, timeout=30)
    assert info.headers.get("access-control-allow-origin") == SITE


def test_the_restricted_config_keeps_the_graphs(config):
    written = json.loads(open(config).read())
    assert written["http"]["cors"]["allow_origins"] == [SITE]
    assert all(ref.startswith("/") for ref in written["graphs"].values())
    with pytest.raises(AgentServerStartError, match="not an origin"):
        restricted_config(["127.0.0.1:8000/app"])
