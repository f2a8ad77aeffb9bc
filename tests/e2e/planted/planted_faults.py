"""Tests that plant a fault in the app's own page and are otherwise fine: run ONLY as an inner pytest
session by tests/e2e/test_guards_apply.py, which asserts that the suite's fixtures make them fail.

Not collected by the suite (the file name is not test_*.py); skipped unless SITEWALK_PLANTED=1.
"""

from __future__ import annotations

import os

import pytest
from conftest_helpers import BOOT_TIMEOUT_MS
from test_accessibility import screens  # noqa: F401 - the suite's own fixture, as its tests use it

import build

pytestmark = pytest.mark.skipif(os.environ.get("SITEWALK_PLANTED") != "1",
                                reason="an inner session of tests/e2e/test_guards_apply.py")

PLANTED = "planted console error"
# A low-contrast line in the app's own page (built through the DOM: the site's Trusted Types refuse HTML).
FAINT_LINE = """() => {
  const p = document.createElement("p");
  p.textContent = "faint planted text";
  p.style.color = "#bbb";
  p.style.background = "#fff";
  document.getElementById("app").append(p);
}"""


def test_a_console_error_in_a_page_that_asks_for_no_watch(page, site, agent_server):
    """Asks for neither `watch` nor `app`: only the autouse fixture can see the error."""
    page.goto(build.app_url(site.url, agent_server))
    page.wait_for_selector("body[data-ready='1']", timeout=BOOT_TIMEOUT_MS)
    page.evaluate("(text) => console.error(text)", PLANTED)


def test_a_console_error_in_the_apps_page(app):
    app.open()
    app.page.evaluate("(text) => console.error(text)", PLANTED)


def test_a_console_error_the_test_expects(app):
    app.open()
    app.expect_console_error(PLANTED)
    app.page.evaluate("(text) => console.error(text)", PLANTED)


def test_an_accessibility_violation_in_the_apps_page(app, screens):  # noqa: F811
    app.open()
    app.page.evaluate(FAINT_LINE)
    screens.check("planted")
    screens.assert_clean()


def test_the_apps_page_as_it_is(app, screens):  # noqa: F811
    app.open()
    screens.check("as built")
    screens.assert_clean()
