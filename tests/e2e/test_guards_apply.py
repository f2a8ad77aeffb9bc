"""The suite's guards apply to its tests, not only to pages of their own: an inner pytest session
(pytest's `pytester`) runs tests/e2e/planted/planted_faults.py under the real conftest.py files, and
each planted fault in the app's own page fails its test.

The negative controls of the checkers (test_browser_watch.py, test_accessibility.py's
test_the_checks_are_not_blind) prove that BrowserWatch and axe see a fault; this proves that the
autouse `watch` fixture checks every page test (even one that asks for no watch) and that the
`screens` fixture the accessibility tests use runs axe on the app's real page and fails on a violation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "e2e" / "planted" / "planted_faults.py"


@pytest.mark.long_wait  # one inner session: a server start and five page boots, mostly waiting
def test_each_planted_fault_fails_its_test_and_nothing_else_does(pytester, monkeypatch):
    monkeypatch.setenv("SITEWALK_PLANTED", "1")
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # the inner session takes no browser slot
    result = pytester.runpytest_subprocess(str(PLANTED), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                                           "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider", "-rA",
                                           timeout=900)
    outcomes = {}
    for line in result.outlines:
        for word in ("PASSED", "FAILED", "ERROR"):
            if line.startswith(word + " ") and "::" in line:
                name = line.split("::", 1)[1].split(" ", 1)[0].split("[", 1)[0]
                outcomes.setdefault(name, []).append(word)
    text = "\n".join(result.outlines[-60:])
    assert outcomes == {
        # the autouse watch checks a test that asked for no watch (an error at its teardown)
        "test_a_console_error_in_a_page_that_asks_for_no_watch": ["PASSED", "ERROR"],
        "test_a_console_error_in_the_apps_page": ["PASSED", "ERROR"],
        "test_a_console_error_the_test_expects": ["PASSED"],
        "test_an_accessibility_violation_in_the_apps_page": ["FAILED"],
        "test_the_apps_page_as_it_is": ["PASSED"],
    }, text
    assert result.stdout.str().count("planted console error") >= 2, text
    assert "color-contrast (serious)" in result.stdout.str() and "planted" in result.stdout.str(), text
