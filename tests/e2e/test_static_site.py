"""The site as a static bundle: any sub-path, and offline after one visit (service worker)."""

from __future__ import annotations

import re

import pytest
from conftest_helpers import BOOT_TIMEOUT_MS, poll, wait_until_ready

import build

pytestmark = pytest.mark.browser_context_args(service_workers="allow")  # these tests are about the service worker


def test_boots_under_a_sub_path(page, agent_server, watch):
    server = build.serve_static(build.ensure_built(), 0, base="/field/sitewalk/")
    watch.allow(server.url)  # the site of this test; nothing else but the agent server
    try:
        page.goto(build.app_url(server.url, agent_server))
        wait_until_ready(page)
        seen = [r.url for r in watch.requests]
        site_requests = [u for u in seen if u.startswith(f"http://127.0.0.1:{server.port}/")]
        assert site_requests and all(u.startswith(server.url) for u in site_requests), site_requests
    finally:
        server.stop()


def test_reload_offline_boots_from_the_service_worker(app):
    page = app.open_under_service_worker().page
    # the worker's own requests (its precache) are seen by the watch, which listens on the context
    assert any("/wheels/" in url for url in app.watch.service_worker_requests())
    before = len(app.watch.requests)
    page.context.set_offline(True)
    # offline, the page's failed requests to the agent server are logged by the browser
    app.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
    try:
        page.reload()
        # Python and every package come from the cache; the agent server is out of reach, and says so.
        poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
        page.locator("#boot-error").wait_for(state="visible", timeout=60_000)
        assert app.server_url in page.locator("#boot-error-message").inner_text()
    finally:
        page.context.set_offline(False)
    # the boot came from the worker: every file of the site the page asked for was answered by it
    site = [r for r in app.watch.requests[before:] if r.url.startswith(app.site_url) and r.service_worker is None]
    names = {r.url.split("?")[0].rsplit("/", 1)[-1] for r in site}
    assert {"boot.js", "pyodide.asm.wasm", "python_stdlib.zip"} <= names, names
    assert any(name.endswith(".whl") for name in names), names
    not_from_worker = [r.url for r in site if r.response() is None or not r.response().from_service_worker]
    assert not_from_worker == []


def test_a_site_built_for_an_assistant_installs_its_worker_and_boots_offline(page, agent_server, watch, tmp_path):
    """`build.py build --assistant ID` (config.json carries the id): the worker's integrity check of
    config.json passes, so it installs, takes the page, and the reload offline boots from it."""
    import json

    dist = tmp_path / "dist"
    assert build.main(["build", "--dist", str(dist), "--server", agent_server, "--assistant", "inspection"]) == 0
    assert json.loads((dist / "config.json").read_text())["assistantId"] == "inspection"
    server = build.serve_static(dist, 0)
    watch.allow(server.url)
    try:
        page.goto(build.app_url(server.url, agent_server))
        wait_until_ready(page)
        poll(page, "navigator.serviceWorker.getRegistration().then((r) => !!(r && r.active))", timeout_s=90)
        page.reload()
        wait_until_ready(page)
        poll(page, "navigator.serviceWorker.controller !== null", timeout_s=30)
        watch.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
        page.context.set_offline(True)
        try:
            page.reload()
            poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
            page.locator("#boot-error").wait_for(state="visible", timeout=60_000)  # the server is out of reach
        finally:
            page.context.set_offline(False)
    finally:
        server.stop()


def test_a_site_built_with_stuck_seconds_uses_them(page, agent_server, watch, tmp_path):
    """`build.py build --stuck-seconds 7`: boot.js reads config.json's stuckSeconds and the app uses it.
    Seen without waiting for a stuck run: a bad `?stuck=` is said with the value used instead, the built one."""
    import json

    dist = tmp_path / "dist"
    assert build.main(["build", "--dist", str(dist), "--server", agent_server, "--stuck-seconds", "7"]) == 0
    assert json.loads((dist / "config.json").read_text())["stuckSeconds"] == 7
    server = build.serve_static(dist, 0)
    watch.allow(server.url)
    watch.expect_console_error(r"\?stuck= is 'soon'")  # said in the console on purpose
    try:
        page.goto(build.app_url(server.url, agent_server) + "&stuck=soon")
        wait_until_ready(page)
        status = page.locator("#sw-status")
        assert status.inner_text() == ("?stuck= is 'soon': it must be a number of seconds from 1 to 3600; "
                                       "7 s is used")
    finally:
        server.stop()


@pytest.mark.parametrize("artifact, named", [
    ("site-packages.zip", "jinja2"),  # the pure packages' archive names the packages it carries
    ("pydantic_core-*.whl", "pydantic-core"),  # a wheel installed by loadPackage
])
def test_a_package_that_fails_to_load_shows_the_error_screen_naming_it(page, agent_server, watch, tmp_path,
                                                                     artifact, named):
    import shutil

    dist = tmp_path / "dist"
    shutil.copytree(build.ensure_built(), dist)
    target = next((dist / "wheels").glob(artifact))
    _rewrite_one_member(target)  # still a valid zip: only its sha256 (subresource integrity) tells
    for sibling in dist.glob("wheels/" + target.name + ".*"):  # the host serves the tampered bytes as they are
        sibling.unlink()
    server = build.serve_static(dist, 0)
    watch.allow(server.url)
    # the browser blocks the file and says why; the app logs what it could not load
    blocked = rf"Fetch API cannot load \S*/wheels/{re.escape(target.name)}\. SRI's integrity checks failed\."
    watch.expect_console_error(blocked)
    watch.expect_console_error(rf"Failed to find a valid digest in the 'integrity' attribute for resource "
                               rf"'\S*/wheels/{re.escape(target.name)}'")
    watch.expect_console_error(r"^Sitewalk")
    try:
        page.goto(build.app_url(server.url, agent_server))
        page.locator("#boot-error").wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
        assert named in page.locator("#boot-error").inner_text().lower()
        # the inspector is told the file was tampered with, not that the network failed
        message = page.locator("#boot-error-message").inner_text()
        assert "integrity check failed" in message and target.name in message, message
        assert page.locator("body[data-ready='1']").count() == 0
        # it failed on its integrity (a valid zip with other bytes), not on a broken download
        assert [m for m in watch.console_errors if re.search(blocked, m)], watch.console_errors
    finally:
        server.stop()


def _rewrite_one_member(archive) -> None:
    """Change the bytes of one file inside a zip and write a new, valid zip (its hash differs)."""
    import zipfile

    with zipfile.ZipFile(archive) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    victim = next(info for info, data in members if data)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            out.writestr(info, data + b"\n" if info is victim else data)
    with zipfile.ZipFile(archive) as check:
        assert check.testzip() is None
