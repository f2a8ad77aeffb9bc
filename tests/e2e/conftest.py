"""End-to-end fixtures: dist/ served on loopback, the real agent server, Debian's Chromium.

Every test that opens a browser page is watched (`watch`, autouse): no request may leave the site and
the agent server, and no console error, uncaught page error or Python traceback may go unexpected.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import build  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_slots import browser_slot  # noqa: E402
from conftest_helpers import (  # noqa: E402
    CHROMIUM_ARGS,
    PAGE_TIMEOUT_MS,
    BrowserWatch,
    poll,
    save_screen,
    wait_until_ready,
)

from sitewalk_build.bench import BOOT_DONE_JS  # noqa: E402  (main() returned, or the boot failed)

# How many e2e tests drive Chromium at once (browser_slots.py); `./sw test` runs more workers than this.
BROWSER_SLOTS = int(os.environ.get("SITEWALK_BROWSER_SLOTS", "4"))


@pytest.fixture(scope="session")
def browser_type_launch_args():
    """Debian's Chromium headless shell when installed (`./sw test` installs it): the same engine and
    version as Debian's chromium without the desktop browser around it, so a page boot costs about a
    quarter less CPU, and the suite is CPU-bound on two cores (docs/testing.md). Else Debian's chromium."""
    exe = shutil.which("chromium-headless-shell") or shutil.which("chromium") or "/usr/bin/chromium"
    return {"executable_path": exe, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """Pages boot without their service worker unless a test asks for it with
    `@pytest.mark.browser_context_args(service_workers="allow")`: its install precaches the whole site,
    about a quarter of a page boot's CPU (docs/testing-history.md), which only the tests of the worker (offline
    boots, the installable app, the watch of its requests) need. Without one the app works as in a
    browser that has no service worker: online, the worker's registration refused with a warning."""
    return {**browser_context_args, "service_workers": "block"}


@pytest.fixture(scope="session")
def site():
    dist = build.ensure_built()
    server = build.serve_static(dist, 0)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def browser_turn(request, tmp_path_factory):
    """On a pytest-xdist worker, the test waits for one of BROWSER_SLOTS slots shared by all workers
    (browser_slots.py), so that the extra workers that speed up the waiting unit tests do not crowd
    two cores with browsers. A `long_wait` test mostly waits, so it takes no slot; one marked
    `long_wait(slot=True)` waits in a module fixture (set up before this one) and takes a slot for its browser."""
    waits = request.node.get_closest_marker("long_wait")
    if not os.environ.get("PYTEST_XDIST_WORKER") or (waits is not None and not waits.kwargs.get("slot")):
        yield
        return
    with browser_slot(tmp_path_factory.getbasetemp().parent / "browser-slots", BROWSER_SLOTS):
        yield


@pytest.fixture(autouse=True)
def watch(request, browser_turn):
    """The BrowserWatch of the test's browser context (None for a test without a page). The site and
    the agent server the test uses are allowed; a test serving a site of its own calls `watch.allow`."""
    if "page" not in request.fixturenames:
        yield None
        return
    page = request.getfixturevalue("page")
    browser_watch = BrowserWatch(page.context)
    for name in ("site", "agent_server"):
        if name in request.fixturenames:
            value = request.getfixturevalue(name)
            browser_watch.allow(value if isinstance(value, str) else value.url)
    yield browser_watch
    browser_watch.check()


class AppPage:
    """The app in one browser page; what the context requested and logged is kept by its `watch`."""

    def __init__(self, page, site_url: str, server_url: str, watch: BrowserWatch, test_name: str = "test"):
        self.page = page
        self.site_url = site_url
        self.server_url = server_url
        self.watch = watch
        self.test_name = test_name
        watch.allow(site_url)
        watch.allow(server_url)
        page.set_default_timeout(PAGE_TIMEOUT_MS)

    def expect_console_error(self, pattern: str) -> None:
        """A console error matching this regular expression is part of what the test exercises."""
        self.watch.expect_console_error(pattern)

    def screenshot(self, step: str) -> Path:
        """The page as a phone shows it, saved for reviewers (test-results/screens/<test>--<step>.png)."""
        return save_screen(self.page, self.test_name, step)

    def open(self, server_url: str | None = None, wait_ready: bool = True, **params: str) -> AppPage:
        """Open the app on `server_url` (the test's server by default); `params` are further
        query parameters (e.g. stall="3")."""
        url = build.app_url(self.site_url, server_url or self.server_url)
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        self.page.goto(url)
        if wait_ready:
            wait_until_ready(self.page)
        return self

    def open_under_service_worker(self) -> AppPage:
        """Open the app, then reload it once its service worker is ready: the page is then
        controlled by the worker, which has precached the bundle (the way to an offline boot)."""
        self.open()
        self.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        self.page.reload()
        wait_until_ready(self.page)
        poll(self.page, "navigator.serviceWorker.controller !== null")
        return self

    def seed(self, key: str, value: str) -> None:
        self.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])

    def seed_draft(self, inspection_id: str, draft: dict) -> None:
        self.seed(f"sitewalk:draft:{inspection_id}", json.dumps(draft))

    def seed_idb(self, key: str, value) -> None:
        """Put a record into the app's IndexedDB drafts store (the app's schema: db sitewalk v1, store drafts)."""
        self.page.evaluate(_idb_js("idb('readwrite', (s) => s.put(arg[1], arg[0]))"), [key, value])

    def idb_get(self, key: str):
        return self.page.evaluate(_idb_js("idb('readonly', (s) => s.get(arg))"), key)

    def local_storage(self, key: str):
        return self.page.evaluate("(k) => localStorage.getItem(k)", key)

    def unfold_start_form(self) -> None:
        """Open the start form if it is folded to its summary line (it folds once an inspection runs)."""
        if not self.page.locator("#sw-start-form").evaluate("(form) => form.open"):
            self.page.click("#sw-start-summary")

    def save_draft_in_form(self, inspection_id: str, draft: dict) -> None:
        self.unfold_start_form()
        self.page.fill("#sw-inspection-id", inspection_id)
        self.page.click(".sw-draft summary")
        self.page.fill("#sw-draft-site", draft.get("site", ""))
        self.page.fill("#sw-draft-inspector", draft.get("inspector", ""))
        self.page.fill("#sw-draft-findings", "\n".join(draft.get("findings", [])))
        self.page.select_option("#sw-draft-risk", draft.get("risk", "low"))
        self.page.fill("#sw-draft-notes", draft.get("notes", ""))
        self.page.click("#sw-save-draft")
        self.page.wait_for_selector(f"#sw-status:has-text('Draft for {inspection_id} saved on this device')")

    def settled(self) -> None:
        """Until the app's main() has returned. The page is ready (data-ready) before it does: main() then
        reads the list and reopens the last inspection, which folds the start form and may ask for a
        sign-in. A test that types into the form or signs in during that races it (a fold between
        unfolding and typing hides the field), which a slower server (Aegra under load) turns into a
        timeout. An inspector's own typing keeps the form open (app/start_form.py)."""
        poll(self.page, BOOT_DONE_JS)

    def begin(self, inspection_id: str, note: str = "") -> None:
        """Press Start and return at once (the run may wait for the inspector)."""
        self.settled()
        self.unfold_start_form()
        self.page.fill("#sw-inspection-id", inspection_id)
        self.page.fill("#sw-note", note)
        self.page.click("#sw-start")

    def wait_finished(self, inspection_id: str) -> None:
        """Until the inspection's work is over (Start can be pressed again) and the status line says where it
        is: done, waiting for the inspector (on what), or failed (and why)."""
        prefix = json.dumps(f"Inspection {inspection_id}: ")
        poll(self.page, "!document.getElementById('sw-start').disabled && ['done', 'waiting for ', 'failed: ']"
                        f".some((w) => document.getElementById('sw-status').textContent.startsWith({prefix} + w))",
             timeout_s=90)

    def wait_status(self, inspection_id: str, words: str) -> None:
        """Until the status line says exactly this of the inspection (e.g. 'waiting for your review (3)')."""
        wanted = f"Inspection {inspection_id}: {words}"
        try:
            self.page.locator("#sw-status", has_text=wanted).wait_for()
        except PlaywrightTimeout:
            raise AssertionError(f"the status line says {self.page.locator('#sw-status').inner_text()!r}, "
                                 f"not {wanted!r}") from None
        assert self.page.locator("#sw-status").inner_text() == wanted

    def start(self, inspection_id: str, note: str = "") -> None:
        self.begin(inspection_id, note)
        self.wait_finished(inspection_id)

    def tool_call(self, tool: str):
        return self.page.locator(f"#sw-tool-calls li[data-tool='{tool}']")

    def sign_in(self, token: str, identity: str | None = None) -> None:
        """Enter a token in the sign-in form (up once the server answered 401); with `identity`, wait
        until the server has named who signed in."""
        self.settled()
        self.page.fill("#sw-token", token)
        self.page.click("#sw-signin-submit")
        if identity is not None:
            self.page.wait_for_selector(f"#sw-signed-in[data-identity='{identity}']")


def _idb_js(body: str) -> str:
    """A page function `(arg) => body` where `idb(mode, fn)` runs one request in its own transaction."""
    return """(arg) => {
  const idb = (mode, fn) => new Promise((resolve, reject) => {
    const open = indexedDB.open('sitewalk', 1);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains('drafts')) open.result.createObjectStore('drafts');
    };
    open.onerror = () => reject(new Error(String(open.error)));
    open.onsuccess = () => {
      const db = open.result, tx = db.transaction('drafts', mode), req = fn(tx.objectStore('drafts'));
      tx.oncomplete = () => { db.close(); resolve(req.result === undefined ? null : req.result); };
      tx.onerror = () => { db.close(); reject(new Error(String(tx.error))); };
    };
  });
  return __BODY__;
}""".replace("__BODY__", body)


@pytest.fixture
def app(page, site, agent_server, watch, request):
    return AppPage(page, site.url, agent_server, watch, request.node.name)


@pytest.fixture
def auth_app(page, site, auth_server, watch, request):
    """The app on the agent server WITH sign-in (`auth_server`: Ana's and Ben's tokens)."""
    app = AppPage(page, site.url, auth_server, watch, request.node.name)
    app.expect_console_error(r"status of 401")  # Chromium logs every refused request; the form answers them
    return app


@pytest.fixture
def another_device(browser, site, request):
    """Factory: the app in a browser context of its own (another inspector's phone), watched like the
    test's own page; its context is closed and checked when the test ends."""
    opened: list[tuple[Any, BrowserWatch]] = []

    def make(server_url: str) -> AppPage:
        context = browser.new_context()
        device_watch = BrowserWatch(context)
        opened.append((context, device_watch))
        return AppPage(context.new_page(), site.url, server_url, device_watch, f"{request.node.name}-other")

    yield make
    for context, device_watch in opened:
        context.close()
        device_watch.check()


@pytest.fixture
def app_on_site(page, agent_server, watch, request):
    """An AppPage of a site of the test's own serving (e.g. a copy of dist/ with a file changed)."""

    def make(site_url: str) -> AppPage:
        return AppPage(page, site_url, agent_server, watch, request.node.name)

    return make


@pytest.fixture
def app_for(page, site, watch, request):
    """An AppPage wired to a server URL of the test's choosing (e.g. one that is down)."""

    def make(server_url: str) -> AppPage:
        return AppPage(page, site.url, server_url, watch, request.node.name)

    return make


@pytest.fixture
def app_in(request):
    """Factory: an AppPage on a page of the test's own browser (e.g. one run in another network) for a site
    and a server of the test's own, watched by the test's own BrowserWatch."""

    def make(page, site_url: str, server_url: str, watch: BrowserWatch) -> AppPage:
        return AppPage(page, site_url, server_url, watch, request.node.name)

    return make
