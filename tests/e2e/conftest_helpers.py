"""Constants and helpers shared by the e2e fixtures and tests (conftest.py itself is not importable by name)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Error
from playwright.sync_api import TimeoutError as PlaywrightTimeout

BOOT_TIMEOUT_MS = 120_000
PAGE_TIMEOUT_MS = 60_000  # an app page's default wait (AppPage), a reload's boot included

# What a page that is not ready shows: the boot screen's words, its error, the app's status line and the
# boot's marks (window.__sitewalkBoot, web/boot.js), so that a boot that times out says where it stood.
_BOOT_STATE_JS = """() => {
  const text = (id) => (document.getElementById(id)?.innerText || "").trim();
  return {boot: text("boot-status"), error: [text("boot-error-message"), text("boot-error-detail")],
          status: text("sw-status"), marks: window.__sitewalkBoot || null, now: performance.now()};
}"""


def wait_until_ready(page: Any, timeout_ms: int = BOOT_TIMEOUT_MS) -> None:
    """Until the page is interactive (body[data-ready]); one that does not get there in time fails with
    where its boot stood (a timeout alone says nothing of a stall in Pyodide, the server or the sign-in)."""
    try:
        page.wait_for_selector("body[data-ready='1']", timeout=timeout_ms)
    except PlaywrightTimeout:
        try:
            state = page.evaluate(_BOOT_STATE_JS)
        except Error as exc:  # the page itself is gone or hung
            state = f"unreadable ({exc})"
        raise AssertionError(f"the page was not ready within {timeout_ms / 1000:g} s: {state}") from None


# --liftoff-only: V8 compiles WebAssembly with its baseline compiler (Liftoff) only, never tiering hot
# functions up to TurboFan. Pyodide's interpreter is one big module whose hot functions TurboFan recompiles
# during every boot; the e2e tests check what the app does, not how fast its Python runs, and the suite is
# CPU-bound (docs/testing.md). One boot to appStarted: 1.7 s of Chromium CPU instead of 2.8 s. The
# benchmarks keep the plain browser (sitewalk_build/browser.py).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--js-flags=--liftoff-only"]

# Screens for reviewers: PNGs at a phone's viewport, in a folder git ignores (.gitignore: test-results/).
# pytest-playwright empties test-results/ when any pytest session starts; SITEWALK_SCREENS keeps them elsewhere.
PHONE = {"width": 390, "height": 844}
SCREENS = Path(os.environ.get("SITEWALK_SCREENS") or Path(__file__).resolve().parents[2] / "test-results" / "screens")

# An uncaught Python exception reaches the console as its traceback (Pyodide's stderr, asyncio's
# "Task exception was never retrieved"), whatever the console level it is written at.
PYTHON_TRACEBACK = "Traceback (most recent call last)"

# The stdlib modules and the pure packages' modules no flow imports, fetched only when an import needs one
# (sitewalk_build/stdlib_split.py): a flow that fetches one means the build's import closure missed a module
# the app uses.
STDLIB_REST = "python_stdlib_rest.zip"
SITE_PACKAGES_REST = "site-packages-rest.zip"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def poll(page, expression: str, timeout_s: float = 120.0, interval_s: float = 0.2) -> None:
    """Wait until a JS expression is true. Not page.wait_for_function: it `eval`s a string predicate on
    each poll, and the site's CSP (no unsafe-eval) refuses an eval from the page's own timers, so such a
    wait passes only when its first check, run through the devtools protocol, is already true (a slower
    server turns it into an EvalError). page.evaluate always runs through the devtools protocol."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true after {timeout_s:g} s: {expression}")
        time.sleep(interval_s)


class BrowserWatch:
    """What one browser context did that a test must answer for, checked when the test ends.

    It listens on the context, not on a page, so the service worker's requests are seen too (Playwright
    reports them on the context), and so are pages opened later. A request to an origin that is neither
    the site nor the agent server fails the test; so does a `console.error`, an uncaught page error or a
    Python traceback, unless the test said it expects it (`expect_console_error`); so does a fetch of the
    rest of the stdlib (`STDLIB_REST`) or of the pure packages (`SITE_PACKAGES_REST`), unless the test
    imports a module from it (`expect_stdlib_rest`, `expect_site_packages_rest`).
    """

    def __init__(self, context: Any, allowed: set[str] | None = None):
        self.allowed = set(allowed or ())
        self.requests: list[Any] = []
        self.foreign_requests: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self._traceback_open = False  # the last console error is a traceback from stderr, still arriving
        self._expected: list[re.Pattern[str]] = []
        self.stdlib_rest_expected = False
        self.site_packages_rest_expected = False
        context.on("request", self._on_request)
        context.on("console", self._on_console)
        context.on("weberror", lambda error: self.page_errors.append(str(error.error)))

    def allow(self, url: str) -> None:
        """Requests to this URL's origin are the test's own (a second site or server)."""
        self.allowed.add(origin(url))

    def expect_console_error(self, pattern: str) -> None:
        """A console error matching this regular expression is part of what the test exercises."""
        self._expected.append(re.compile(pattern))

    def expect_stdlib_rest(self) -> None:
        """The test imports a stdlib module the app never imports: the rest archive may be fetched."""
        self.stdlib_rest_expected = True

    def expect_site_packages_rest(self) -> None:
        """The test imports a pure package's module the app never imports: its rest archive may be fetched."""
        self.site_packages_rest_expected = True

    def stdlib_rest_requests(self) -> list[str]:
        return self._requests_of(STDLIB_REST)

    def site_packages_rest_requests(self) -> list[str]:
        return self._requests_of(SITE_PACKAGES_REST)

    def _requests_of(self, name: str) -> list[str]:
        return [r.url for r in self.requests if r.url.split("?")[0].endswith("/" + name)]

    def _on_request(self, request: Any) -> None:
        self.requests.append(request)
        if request.url.startswith(("data:", "blob:")):
            return
        if origin(request.url) not in self.allowed:
            self.foreign_requests.append(request.url)

    def _on_console(self, message: Any) -> None:
        if self._traceback_open and message.type == "warning":
            self._add_traceback_line(message.text)
        elif message.type == "error" or PYTHON_TRACEBACK in message.text:
            self.console_errors.append(message.text)
            self._traceback_open = message.text.rstrip() == PYTHON_TRACEBACK + ":"  # its first line alone

    def _add_traceback_line(self, line: str) -> None:
        """Python's stderr reaches the console a line at a time (console.warn): a traceback's frames and its
        exception line join the entry of its first line, so that a failure says which error it was."""
        self.console_errors[-1] += "\n" + line
        self._traceback_open = line.startswith(" ")  # the exception line, unindented, ends it

    def unexpected_console_errors(self) -> list[str]:
        return [m for m in self.console_errors if not any(p.search(m) for p in self._expected)]

    def resume_commands(self, thread_id: str) -> list[Any]:
        """The `command.resume` of each run the page asked for on this thread, in the order sent.

        Read from the page's requests because both servers show them alike: `langgraph dev` lists a run's
        command in `GET /threads/{id}/runs` (`kwargs.command`), Aegra's run list has no `kwargs` at all."""
        sent = []
        for request in self.requests:
            if request.method != "POST" or not re.search(rf"/threads/{re.escape(thread_id)}/runs(/stream|/wait)?$",
                                                         urlsplit(request.url).path):
                continue
            command = (request.post_data_json or {}).get("command") or {}
            if "resume" in command:
                sent.append(command["resume"])
        return sent

    def service_worker_requests(self) -> list[str]:
        return [r.url for r in self.requests if r.service_worker is not None]

    def check(self) -> None:
        assert self.foreign_requests == [], f"requests left the site and the agent server: {self.foreign_requests}"
        assert self.page_errors == [], f"uncaught errors in the page: {self.page_errors}"
        if not self.stdlib_rest_expected:
            assert self.stdlib_rest_requests() == [], "the rest of the stdlib was fetched: the build missed an import"
        if not self.site_packages_rest_expected:
            assert self.site_packages_rest_requests() == [], ("the rest of the pure packages was fetched: the build "
                                                              "missed an import")
        unexpected = self.unexpected_console_errors()
        assert unexpected == [], f"console errors (or Python tracebacks) the test did not expect: {unexpected}"


def save_screen(page: Any, test_name: str, step: str) -> Path:
    """Save the page as a phone shows it (390x844, the whole page) as test-results/screens/<test>--<step>.png."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{test_name}--{step}").strip("_")
    path = SCREENS / f"{name}.png"
    before = page.viewport_size
    scrolled = page.evaluate("() => window.scrollY")
    page.set_viewport_size(PHONE)
    try:
        page.evaluate("() => window.scrollTo(0, 0)")  # from the top: a sticky header then stays at the top
        # two frames: the layout at the new width is painted before the shot
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        page.screenshot(path=str(path), full_page=True, animations="disabled")
    finally:
        if before:
            page.set_viewport_size(before)
        page.evaluate("(y) => window.scrollTo(0, y)", scrolled)
    return path
