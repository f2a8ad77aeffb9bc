"""The site on the wire: precompressed through an encoding-aware host, as it is through one that knows no
encodings, and the stdlib and pure packages the app never imports fetched only when an import needs them."""

from __future__ import annotations

import pytest
from conftest_helpers import poll, wait_until_ready

import build

# Offline boots and the rest archives kept for them need the service worker.
pytestmark = pytest.mark.browser_context_args(service_workers="allow")

# Large files of the first visit: each has a .br sibling, which an encoding-aware host sends.
LARGE = ("pyodide.asm.wasm", "python_stdlib.zip", "site-packages.zip")


def _site_responses(watch, site_url: str, name: str) -> list:
    """The responses the network (not the service worker) gave for the site's file `name`."""
    found = []
    for request in watch.requests:
        if request.url.split("?")[0] == site_url + name or request.url.split("?")[0].endswith("/" + name):
            response = request.response()
            if response is not None and not response.from_service_worker:
                found.append(response)
    return found


def test_first_visit_is_brotli_through_the_encoding_aware_server_then_offline(app):
    page = app.open_under_service_worker().page
    for name in LARGE:
        responses = _site_responses(app.watch, app.site_url, name)
        assert responses, name
        first = responses[0].headers
        assert first.get("content-encoding") == "br" and "accept-encoding" in first.get("vary", "").lower(), first
    # the worker stored what it fetched, decoded: an offline reload boots Python and every package from it
    page.context.set_offline(True)
    app.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
    try:
        page.reload()
        poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
        page.locator("#boot-error").wait_for(state="visible", timeout=60_000)
    finally:
        page.context.set_offline(False)


def test_boots_from_a_host_that_knows_no_encodings(page, agent_server, watch):
    server = build.serve_static(build.ensure_built(), 0, precompressed=False)
    watch.allow(server.url)
    try:
        page.goto(build.app_url(server.url, agent_server))
        wait_until_ready(page)
        for name in LARGE:
            responses = _site_responses(watch, server.url, name)
            assert responses and all("content-encoding" not in r.headers for r in responses), name
    finally:
        server.stop()


def test_a_module_left_out_of_the_boot_is_fetched_when_imported(app):
    page = app.open().page
    assert app.watch.stdlib_rest_requests() == []  # the boot did without it
    app.watch.expect_stdlib_rest()
    origin = page.evaluate("window.__sitewalkPyodide.runPython('import doctest; doctest.__spec__.origin')")
    assert "-rest.zip/doctest.py" in origin, origin
    # a second module from the same archive costs no second download
    page.evaluate("window.__sitewalkPyodide.runPython('import email.mime.text; email.mime.text.MIMEText(\"x\")')")
    assert len(app.watch.stdlib_rest_requests()) == 1, app.watch.stdlib_rest_requests()
    # an import of a module that exists nowhere still fails at once, as ImportError
    missing = page.evaluate("window.__sitewalkPyodide.runPython("
                            "'try:\\n import no_such_module_anywhere\\nexcept ImportError as e:\\n r = str(e)\\nr')")
    assert "no_such_module_anywhere" in missing


def test_the_rest_of_the_stdlib_is_kept_by_the_service_worker_once_fetched(app):
    page = app.open_under_service_worker().page
    app.watch.expect_stdlib_rest()
    page.evaluate("window.__sitewalkPyodide.runPython('import doctest')")  # fetched through the worker, kept
    page.context.set_offline(True)
    app.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
    try:
        page.reload()
        poll(page, "!!(window.__sitewalkBoot && window.__sitewalkBoot.packagesLoaded > 0)")
        origin = page.evaluate("window.__sitewalkPyodide.runPython('import doctest; doctest.__spec__.origin')")
    finally:
        page.context.set_offline(False)
    assert "-rest.zip/doctest.py" in origin, origin


def test_a_pure_package_module_left_out_of_the_boot_is_fetched_when_imported(app):
    page = app.open().page
    assert app.watch.site_packages_rest_requests() == []  # the boot did without it
    # micropip is in the bundle, and the app never imports it: it waits in the rest archive (and the stdlib
    # modules only it imports, in the stdlib's)
    app.watch.expect_stdlib_rest()
    origin = page.evaluate("window.__sitewalkPyodide.runPython('import micropip; micropip.__spec__.origin')")
    assert "site-packages-rest.zip/micropip/__init__.py" in origin, origin
    with pytest.raises(AssertionError, match="rest of the pure packages was fetched"):
        app.watch.check()  # the guard every flow runs under sees the fetch
    app.watch.expect_site_packages_rest()
    # a module of the boot archive's package, left out of it, comes from the rest too, with one download
    pydantic = page.evaluate("window.__sitewalkPyodide.runPython("
                             "'import pydantic.alias_generators as a; a.to_camel(\"a_b\") + a.__spec__.origin')")
    assert pydantic.startswith("aB") and "site-packages-rest.zip/pydantic/alias_generators" in pydantic, pydantic
    assert len(app.watch.site_packages_rest_requests()) == 1, app.watch.site_packages_rest_requests()
