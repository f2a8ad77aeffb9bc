"""No test waits with page.wait_for_function: under the site's CSP its polls cannot eval (see
conftest_helpers.poll), so it passes on a fast server and fails on a slower one, as it did on Aegra."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
WAIT_FOR_FUNCTION = re.compile(r"\.wait_for_function\(")


def calls_in(source: str) -> int:
    return len(WAIT_FOR_FUNCTION.findall(source))


def test_the_check_sees_a_call():
    assert calls_in('page.wait_for_function("document.body")') == 1
    assert calls_in('poll(page, "document.body")  # not page.wait_for_function') == 0


def test_no_test_waits_with_wait_for_function():
    found = [f"{path.relative_to(TESTS)}" for path in sorted(TESTS.rglob("*.py"))
             if "node_modules" not in path.parts and path != Path(__file__).resolve()
             and calls_in(path.read_text(encoding="utf-8"))]
    assert found == [], f"use conftest_helpers.poll instead of page.wait_for_function in {found}"
