"""The web app manifest: linked from the shell, relative (so the app installs under any sub-path),
its icons served from the site, and everything of it answered by the service worker offline."""

from __future__ import annotations

import json
import struct
import urllib.parse

import pytest
from conftest_helpers import poll, wait_until_ready

import build

pytestmark = pytest.mark.browser_context_args(service_workers="allow")  # an installable app has its worker

BASE = "/field/sitewalk/"
FETCH_JS = """async (url) => { const r = await fetch(url);
  return {ok: r.ok, type: r.headers.get('content-type'), bytes: [...new Uint8Array(await r.arrayBuffer())]}; }"""


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _check_icon(icon: dict, data: bytes, content_type: str) -> None:
    assert content_type == icon["type"], (icon, content_type)
    if icon["type"] == "image/png":
        width, height = (int(n) for n in icon["sizes"].split("x"))
        assert _png_size(data) == (width, height), icon


def test_the_manifest_is_linked_relative_and_its_icons_load_under_a_sub_path(page, agent_server, watch):
    server = build.serve_static(build.ensure_built(), 0, base=BASE)
    watch.allow(server.url)
    try:
        page.goto(build.app_url(server.url, agent_server))
        wait_until_ready(page)
        href = page.evaluate("document.querySelector('link[rel=manifest]').href")
        assert href == server.url + "manifest.webmanifest"
        got = page.evaluate(FETCH_JS, href)
        assert got["ok"] and got["type"] == "application/manifest+json"
        manifest = json.loads(bytes(got["bytes"]))
        assert manifest["start_url"] == "./" and manifest["scope"] == "./"  # the folder the app is served from
        assert manifest["display"] == "standalone" and manifest["name"] and manifest["short_name"]
        sizes = {icon["sizes"] for icon in manifest["icons"]}
        assert {"192x192", "512x512"} <= sizes
        for icon in manifest["icons"]:
            url = urllib.parse.urljoin(href, icon["src"])
            assert url.startswith(server.url), url  # under the sub-path, on the site
            got = page.evaluate(FETCH_JS, url)
            assert got["ok"], url
            _check_icon(icon, bytes(got["bytes"]), got["type"])
    finally:
        server.stop()


def test_after_an_offline_reload_the_manifest_and_icons_come_from_the_service_worker(app):
    page = app.open_under_service_worker().page
    page.context.set_offline(True)
    # offline, the page's failed requests to the agent server are logged by the browser
    app.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
    try:
        page.reload()
        poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
        manifest_url = page.evaluate("document.querySelector('link[rel=manifest]').href")
        with page.expect_response(lambda r: r.url == manifest_url) as answered:
            got = page.evaluate(FETCH_JS, manifest_url)
        assert got["ok"] and answered.value.from_service_worker
        manifest = json.loads(bytes(got["bytes"]))
        for icon in manifest["icons"]:
            url = urllib.parse.urljoin(manifest_url, icon["src"])
            with page.expect_response(lambda r, url=url: r.url == url) as answered:
                got = page.evaluate(FETCH_JS, url)
            assert got["ok"] and answered.value.from_service_worker, url
            _check_icon(icon, bytes(got["bytes"]), got["type"])
    finally:
        page.context.set_offline(False)
