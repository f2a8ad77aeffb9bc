"""The site as a static bundle: any sub-path, and offline after one visit (service worker)."""

from __future__ import annotations

import pytest
from conftest_helpers import BOOT_TIMEOUT_MS, poll

import build


def test_boots_under_a_sub_path(page, agent_server):
    server = build.serve_static(build.ensure_built(), 0, base="/field/sitewalk/")
    try:
        seen: list[str] = []
        page.on("request", lambda r: seen.append(r.url))
        page.goto(build.app_url(server.url, agent_server))
        page.wait_for_selector("body[data-ready='1']", timeout=BOOT_TIMEOUT_MS)
        site_requests = [u for u in seen if u.startswith(f"http://127.0.0.1:{server.port}/")]
        assert site_requests and all(u.startswith(server.url) for u in site_requests), site_requests
    finally:
        server.stop()


def test_reload_offline_boots_from_the_service_worker(app):
    app.open()
    page = app.page
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now controlled by the worker, which precaches the bundle
    page.wait_for_selector("body[data-ready='1']", timeout=BOOT_TIMEOUT_MS)
    poll(page, "navigator.serviceWorker.controller !== null")
    page.context.set_offline(True)
    try:
        page.reload()
        # Python and every package come from the cache; the agent server is out of reach, and says so.
        poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
        page.locator("#boot-error").wait_for(state="visible", timeout=60_000)
        assert app.server_url in page.locator("#boot-error-message").inner_text()
    finally:
        page.context.set_offline(False)


@pytest.mark.parametrize("artifact, named", [
    ("site-packages.zip", "jinja2"),  # the pure packages' archive names the packages it carries
    ("pydantic_core-*.whl", "pydantic-core"),  # a wheel installed by loadPackage
])
def test_a_package_that_fails_to_load_shows_the_error_screen_naming_it(page, agent_server, tmp_path, artifact, named):
    import shutil

    dist = tmp_path / "dist"
    shutil.copytree(build.ensure_built(), dist)
    target = next((dist / "wheels").glob(artifact))
    target.write_bytes(target.read_bytes()[:-100])  # truncated: its sha256 (subresource integrity) fails
    server = build.serve_static(dist, 0)
    try:
        page.goto(build.app_url(server.url, agent_server))
        page.locator("#boot-error").wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
        assert named in page.locator("#boot-error").inner_text().lower()
        assert page.locator("body[data-ready='1']").count() == 0
    finally:
        server.stop()
