"""Headless Chromium as it works on this project's machines (Debian's chromium), for tests and benchmarks."""

from __future__ import annotations

import shutil
import time
from typing import Any

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_launch_args() -> dict[str, Any]:
    """Keyword arguments for playwright's ``chromium.launch`` on this project's machines."""
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    return {"executable_path": exe, "args": list(CHROMIUM_ARGS), "headless": True}


def wait_js(page: Any, expression: str, timeout: float = 120.0, interval: float = 0.05) -> Any:
    """Poll ``expression`` in the page until it is truthy; return its value.

    Playwright's ``wait_for_function`` evaluates its predicate with eval(),
    which the site's CSP forbids; ``page.evaluate`` is not subject to it.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {expression}")
        time.sleep(interval)
