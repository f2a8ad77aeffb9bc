"""Negative controls for BrowserWatch (conftest_helpers.py), the guard every e2e test runs under.

A guard that cannot fail guards nothing: in the real Chromium, on a tiny site of the test's own, a
request to another origin from the page, one from its service worker, an unexpected console error and
a Python traceback each make `check()` fail; a clean page, and an error the test said it expects, pass.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest_helpers import BrowserWatch, poll, wait_until_ready

pytestmark = pytest.mark.browser_context_args(service_workers="allow")  # the watch must see the worker's requests

PAGE = """<!doctype html><meta charset="utf-8"><title>watched</title><link rel="icon" href="data:,"><p>a page</p>
<script>
  if (new URLSearchParams(location.search).has("worker")) {
    navigator.serviceWorker.register("sw.js?foreign=" + encodeURIComponent(new URLSearchParams(location.search)
      .get("worker")));
  }
</script>
"""
WORKER = """
const foreign = new URLSearchParams(location.search).get("foreign");
self.addEventListener("install", (event) => {
  event.waitUntil(fetch(foreign + "/from-the-worker", { mode: "no-cors" }).catch(() => null));
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _serve(folder: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def sites(tmp_path) -> Iterator[tuple[str, str]]:
    """(the watched site, a foreign origin): two loopback servers on ports of their own."""
    own, foreign = tmp_path / "own", tmp_path / "foreign"
    own.mkdir()
    foreign.mkdir()
    (own / "index.html").write_text(PAGE)
    (own / "sw.js").write_text(WORKER)
    (foreign / "from-the-page").write_text("x")
    (foreign / "from-the-worker").write_text("x")
    for site in _serve(own):
        for other in _serve(foreign):
            yield site, other


@pytest.fixture
def watched(browser, sites):
    """A fresh context with its BrowserWatch (only the site allowed), and its page on the site."""
    site, _ = sites
    context = browser.new_context()
    watch = BrowserWatch(context, allowed={site})
    page = context.new_page()
    page.goto(site + "/index.html")
    yield watch, page
    context.close()


def test_a_clean_page_passes(watched):
    watch, page = watched
    page.evaluate("fetch('index.html').then((r) => r.status)")
    watch.check()  # the positive control: what fails below fails for its own reason


def test_a_request_from_the_page_to_another_origin_fails(watched, sites):
    watch, page = watched
    page.evaluate("(url) => fetch(url, {mode: 'no-cors'}).then(() => true)", sites[1] + "/from-the-page")
    with pytest.raises(AssertionError, match="requests left the site"):
        watch.check()
    assert watch.foreign_requests == [sites[1] + "/from-the-page"]


def test_a_request_from_the_service_worker_to_another_origin_fails(watched, sites):
    watch, page = watched
    page.goto(f"{sites[0]}/index.html?worker={sites[1]}")
    poll(page, "navigator.serviceWorker.getRegistration().then((r) => !!(r && r.active))", timeout_s=30)
    from_worker = sites[1] + "/from-the-worker"
    assert from_worker in watch.service_worker_requests()
    assert watch.foreign_requests == [from_worker]  # the worker's, not the page's
    with pytest.raises(AssertionError, match="requests left the site"):
        watch.check()


@pytest.mark.parametrize("script", [
    "console.error('Sitewalk: something broke')",
    "console.log('Traceback (most recent call last):\\n  File \"x.py\"\\nValueError: no')",
    "setTimeout(() => { throw new Error('uncaught') }, 0)",
])
def test_an_unexpected_console_error_or_traceback_fails(watched, script):
    watch, page = watched
    page.evaluate(script)
    poll(page, "new Promise((done) => setTimeout(() => done(true), 100))")
    with pytest.raises(AssertionError, match="console errors|uncaught errors"):
        watch.check()


def test_a_traceback_printed_a_line_at_a_time_fails_with_its_exception_line(watched):
    """Pyodide writes Python's stderr to console.warn a line at a time: the failure names the error, not
    only "Traceback (most recent call last):"; a warning after the traceback is not part of it."""
    watch, page = watched
    page.evaluate("""() => {
      for (const line of ["Traceback (most recent call last):", '  File "app.py", line 3, in run',
                          "    answer()", "KeyError: 'interrupt-7'", "a later warning"]) console.warn(line);
    }""")
    poll(page, "new Promise((done) => setTimeout(() => done(true), 100))")
    with pytest.raises(AssertionError, match=r"console errors.*KeyError: .*interrupt-7"):
        watch.check()
    assert watch.unexpected_console_errors() == [
        "Traceback (most recent call last):\n  File \"app.py\", line 3, in run\n    answer()\nKeyError: 'interrupt-7'"]


def test_an_expected_console_error_passes_and_only_that_one(watched):
    watch, page = watched
    watch.expect_console_error(r"^Sitewalk: offline$")
    page.evaluate("console.error('Sitewalk: offline')")
    poll(page, "new Promise((done) => setTimeout(() => done(true), 100))")
    watch.check()
    page.evaluate("console.error('Sitewalk: offline, and something else')")
    poll(page, "new Promise((done) => setTimeout(() => done(true), 100))")
    with pytest.raises(AssertionError, match="console errors"):
        watch.check()


def test_a_boot_that_does_not_get_ready_fails_with_where_it_stood(page):
    """wait_until_ready's control: a page stuck on its boot screen fails the wait with the screen's words
    and its error, not with a bare timeout; a ready page passes."""
    page.set_content('<body><p id="boot-status">Loading packages…</p>'
                     '<p id="boot-error-message">Cannot reach the agent server</p></body>')
    with pytest.raises(AssertionError, match=r"not ready within 0.3 s.*Loading packages….*Cannot reach the agent"):
        wait_until_ready(page, timeout_ms=300)
    page.evaluate("document.body.dataset.ready = '1'")
    # A ready page passes at once; the long limit only keeps a loaded machine's round trip out of it.
    wait_until_ready(page, timeout_ms=30_000)
