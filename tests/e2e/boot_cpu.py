"""CPU seconds of Chromium per page boot of the built dist/, for choosing the e2e browser's flags.

    .venv/bin/python tests/e2e/boot_cpu.py [--boots 5] [--flags=--js-flags=--liftoff-only]

By default it compares no extra flags with Liftoff only. A flag set is one string, given as --flags=SET
since it starts with dashes (several: --flags "" " --js-flags=..."). Each launches the e2e tests' Chromium
with CHROMIUM_ARGS minus their --js-flags plus the set, boots the app once to warm the browser, then
N times, each in a fresh context, to ``__sitewalkBoot.appStarted`` against a real agent server.
Per boot: utime+stime summed over the browser's process tree (/proc; a renderer that exited counts
through its parent's cutime/cstime). Prints the median. The suite is CPU-bound on two cores
(docs/testing.md), so this, not the wall time, is what to compare.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from conftest_helpers import CHROMIUM_ARGS  # noqa: E402

from sitewalk_build.agent_server import start_agent_server  # noqa: E402
from sitewalk_build.assemble import ensure_built  # noqa: E402
from sitewalk_build.static_server import app_url, serve_static  # noqa: E402

BOOTED = "!!(window.__sitewalkBoot && (window.__sitewalkBoot.appStarted || window.__sitewalkBoot.error))"
TICKS = os.sysconf("SC_CLK_TCK")


def _stats() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, utime+stime+cutime+cstime in ticks) of every process."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        found[int(name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
    return found


def chromium_cpu_s(root: int) -> float:
    """CPU seconds of the Chromium processes under `root` (this script), the exited ones reaped included."""
    stats = _stats()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            is_chromium = "chrom" in os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        total += stats[pid][1] if is_chromium else 0
    return total / TICKS


def boots(browser, url: str, count: int) -> list[float]:
    spent = []
    for i in range(count + 1):  # the first one warms the browser up and is not counted
        before = chromium_cpu_s(os.getpid())
        context = browser.new_context()
        page = context.new_page()
        page.goto(url)
        while not page.evaluate(BOOTED):
            time.sleep(0.05)
        if page.evaluate("window.__sitewalkBoot.error || null"):
            raise RuntimeError(f"boot failed: {page.evaluate('window.__sitewalkBoot.error')}")
        context.close()
        time.sleep(0.3)  # the renderer exits and is reaped
        if i:
            spent.append(chromium_cpu_s(os.getpid()) - before)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boots", type=int, default=5)
    parser.add_argument("--flags", nargs="*", default=["", "--js-flags=--liftoff-only"])
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    base = [a for a in CHROMIUM_ARGS if not a.startswith("--js-flags")]
    agent = start_agent_server(state_dir=Path(tempfile.mkdtemp(prefix="boot-cpu-")))
    static = serve_static(ensure_built(), 0)
    try:
        with sync_playwright() as pw:
            for flags in options.flags:
                browser = pw.chromium.launch(executable_path=shutil.which("chromium-headless-shell"),
                                             args=base + flags.split())
                try:
                    spent = boots(browser, app_url(static.url, agent.url), options.boots)
                finally:
                    browser.close()
                print(f"{flags or '(no extra flags)':60s} {statistics.median(spent):.2f} s CPU per boot "
                      f"(min {min(spent):.2f}, max {max(spent):.2f})", flush=True)
    finally:
        static.stop()
        agent.stop()


if __name__ == "__main__":
    main()
