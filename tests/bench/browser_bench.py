"""What the browser benchmarks share: the site booted in Chromium, Python run in the page, medians."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from conftest_helpers import wait_until_ready  # noqa: E402

import build  # noqa: E402

# Run Python in the booted app's Pyodide; the result comes back as a string (or null).
RUN_PY = ("async (code) => { const r = await window.__sitewalkPyodide.runPythonAsync(code);"
          " return r === undefined ? null : String(r); }")
# The tests' in-memory store (tests/memory_storage.py, not shipped in the app) put beside the page's
# Python, where `import memory_storage` finds it (the working folder is on sys.path).
PUT_MODULE = "([name, source]) => window.__sitewalkPyodide.FS.writeFile(name, source)"
MEMORY_STORAGE = ROOT / "tests" / "memory_storage.py"


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


@contextmanager
def booted_app_page(agent_server: str, setup_python: str, profile: Any = None, traces: bool = False):
    """A Chromium page with the app from dist/ booted against `agent_server`, then `setup_python` run in it;
    with `profile` (sitewalk_build.bench's PHONE) under that device's CPU and network; with `traces`, served a
    config.json that turns device tracing on."""
    from playwright.sync_api import sync_playwright

    from sitewalk_build.bench import _page

    static = build.serve_static(build.ensure_built(), 0)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**build.chromium_launch_args())
            page = _page(browser, profile)[1] if profile is not None else browser.new_page()
            if traces:
                page.route("**/config.json", lambda route: route.fulfill(json={**route.fetch().json(), "traces": True}))
            page.set_default_timeout(120_000)
            page.goto(build.app_url(static.url, agent_server))
            wait_until_ready(page)
            page.evaluate(PUT_MODULE, [MEMORY_STORAGE.name, MEMORY_STORAGE.read_text()])
            page.evaluate(RUN_PY, setup_python)
            yield page
            browser.close()
    finally:
        static.stop()
