"""The boot benchmark: Sitewalk's cold and warm boot to interactive against bare Pyodide loading the
same packages, in the same browser, same run, under a device profile.

Both are served the same way: by the encoding-aware static server (precompressed .br/.gz), the
baseline (baseline.py, outside dist/) under ``/bench/`` beside the site. The first visit's bytes
are what the browser received (``transferSize``), in all and per file, next to each file's raw, .br
and .gz sizes. The figures are printed and written to a JSON file (``.bench/boot.json`` by default),
so that two runs can be compared.

Profiles: ``desktop`` (the machine as it is) and ``phone`` (4x CPU slowdown and a mobile network:
about 1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip, through CDP, at a 390x844 viewport).
All times are ``performance.now()`` in the page, i.e. ms since navigation start. Sitewalk's
"interactive" is ``__sitewalkBoot.appStarted`` (the app's main() returned). The figures are
reported with their ratios; there is no pass or fail.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitewalk_build.agent_server import AgentServer, start_agent_server
from sitewalk_build.assemble import ensure_built
from sitewalk_build.baseline import write_baseline
from sitewalk_build.browser import chromium_launch_args, wait_js
from sitewalk_build.errors import log
from sitewalk_build.paths import DIST, ROOT
from sitewalk_build.ports import free_port
from sitewalk_build.static_server import app_url, serve_static

BOOT_DONE_JS = ("(window.__sitewalkBoot && (window.__sitewalkBoot.appStarted || window.__sitewalkBoot.error))"
                " ? window.__sitewalkBoot : null")
BARE_DONE_JS = "window.__bare && (window.__bare.done || window.__bare.error) ? window.__bare : null"
FCP_JS = "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"
# When a press on Start is first kept (web/first_press.js): with first paint, the first usable input.
START_KEPT_JS = "(window.sitewalkFirstPress || {}).listening || null"
# Bytes the page received over the network (encoded bodies and headers; 0 for what a cache answered).
BYTES_JS = ("[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]"
            ".reduce((sum, e) => sum + (e.transferSize || 0), 0)")
# What each file of the site cost over the wire (path -> transferSize), on the cold boot.
FILES_JS = ("Object.fromEntries(performance.getEntriesByType('resource')"
            ".filter((e) => e.name.startsWith(location.origin))"
            ".map((e) => [new URL(e.name).pathname, e.transferSize || 0]))")
BENCH_DIR = ROOT / ".bench"
# The targets of issue 15 (docs: DESIGN.md "Targets the benchmarks report against").
TARGETS = {"first_visit_mb": 6.0, "phone_cold_s": 35.0, "phone_cold_over_bare": 0.7, "desktop_warm_over_cold": 0.35,
           "phone_warm_s": 5.0, "phone_first_input_s": 2.0}
# A fixed amount of pure JS work, timed in the page: shows the CPU slowdown is in effect.
CPU_PROBE_JS = "(() => { const t = performance.now(); let x = 0; for (let i = 0; i < 2e7; i++) x += i % 7;" \
               " return x > 0 ? performance.now() - t : 0; })()"


@dataclass(frozen=True)
class Profile:
    """A device to emulate: CPU slowdown, network conditions (CDP's form) and the browser context."""

    name: str
    cpu_slowdown: float = 1.0
    network: dict[str, Any] | None = None  # Network.emulateNetworkConditions parameters
    context: dict[str, Any] = field(default_factory=dict)  # playwright new_context() options
    timeout: float = 180.0  # s, for one boot


DESKTOP = Profile("desktop")
PHONE = Profile(
    "phone",
    cpu_slowdown=4.0,
    network={"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8},
    context={"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True,
             "has_touch": True},
    timeout=900.0,
)
PROFILES = {p.name: p for p in (DESKTOP, PHONE)}
FIGURES = ["bare", "bare_python", "bare_bytes", "cold", "cold_python", "cold_packages", "cold_main", "cold_paint",
           "cold_usable", "cold_bytes", "warm", "warm_python", "warm_packages", "warm_main", "cpu_probe"]


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2) if xs else float("nan")


def _page(browser: Any, profile: Profile) -> tuple[Any, Any]:
    """A fresh context (empty HTTP cache, no service worker) and a page with the profile applied."""
    ctx = browser.new_context(**profile.context)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    if profile.cpu_slowdown != 1.0:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile.cpu_slowdown})
    if profile.network:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", profile.network)
    return ctx, page


def _boot(page: Any, timeout: float) -> dict[str, Any]:
    boot: dict[str, Any] = wait_js(page, BOOT_DONE_JS, timeout)
    if boot.get("error"):
        raise RuntimeError(f"boot failed: {boot['error']}")
    return boot


def _bare_run(browser: Any, profile: Profile, site_url: str) -> dict[str, float]:
    """Plain loadPyodide of the same packages as downloaded (web/bench/bare.html)."""
    ctx, page = _page(browser, profile)
    try:
        page.goto(site_url + "bench/bare.html", wait_until="commit")
        bare = wait_js(page, BARE_DONE_JS, profile.timeout)
        received = page.evaluate(BYTES_JS)
    finally:
        ctx.close()
    if bare.get("error"):
        raise RuntimeError(f"bare page failed: {bare['error']}")
    return {"bare": bare["done"], "bare_python": bare["pyodideReady"], "bare_bytes": received}


def _app_run(browser: Any, profile: Profile, url: str) -> dict[str, Any]:
    """Sitewalk cold (fresh context), then warm (reloaded once its service worker controls the page)."""
    ctx, page = _page(browser, profile)
    try:
        page.goto(url, wait_until="commit")
        cold = _boot(page, profile.timeout)
        paint = page.evaluate(FCP_JS) or math.nan
        start_kept = page.evaluate(START_KEPT_JS) or math.nan
        usable = math.nan if math.isnan(paint) or math.isnan(start_kept) else max(paint, start_kept)  # both, or unknown
        figures = {"cold": cold["appStarted"], "cold_python": cold["pyodideReady"],
                   "cold_packages": cold["packagesLoaded"], "cold_main": cold["appStarted"] - cold["appStarting"],
                   "cold_paint": paint, "cold_usable": usable, "cold_bytes": page.evaluate(BYTES_JS),
                   "cold_files": page.evaluate(FILES_JS)}
        wait_js(page, "navigator.serviceWorker.controller !== null", profile.timeout)
        page.reload(wait_until="commit")
        warm = _boot(page, profile.timeout)
        figures.update({"warm": warm["appStarted"], "warm_python": warm["pyodideReady"],
                        "warm_packages": warm["packagesLoaded"], "warm_main": warm["appStarted"] - warm["appStarting"],
                        "cpu_probe": page.evaluate(CPU_PROBE_JS)})
        return figures
    finally:
        ctx.close()


def _runs(runs: int, profile: Profile, site_url: str, url: str) -> dict[str, list[Any]]:
    from playwright.sync_api import sync_playwright

    results: dict[str, list[Any]] = {k: [] for k in FIGURES}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**chromium_launch_args())
        try:
            for i in range(runs):
                figures = _bare_run(browser, profile, site_url) | _app_run(browser, profile, url)
                results.setdefault("cold_files", []).append(figures.pop("cold_files"))
                for key, value in figures.items():
                    results[key].append(value)
                log(f"{profile.name} run {i + 1}/{runs}: bare {figures['bare']:.0f} ms, "
                    f"cold {figures['cold']:.0f} ms, warm {figures['warm']:.0f} ms")
        finally:
            browser.close()
    return results


def run_bench(runs: int = 5, dist: Path = DIST, timeout: float | None = None, with_server: bool | None = None,
              profile: Profile = DESKTOP) -> dict[str, Any]:
    """Measure bare Pyodide, Sitewalk cold and warm boot under ``profile``; return the figures (ms).

    If langgraph.json exists, a real agent server is started so that the app's first screen can
    come up; otherwise the app is pointed at a closed port.
    """
    if timeout is not None:
        profile = Profile(profile.name, profile.cpu_slowdown, profile.network, profile.context, timeout)
    ensure_built(dist)
    baseline = write_baseline(BENCH_DIR / "baseline")
    if with_server is None:
        with_server = (ROOT / "langgraph.json").exists()
    agent: AgentServer | None = start_agent_server() if with_server else None
    static = serve_static(dist, 0, mounts={"bench": baseline})
    try:
        server_url = agent.url if agent else f"http://127.0.0.1:{free_port()}"
        results = _runs(runs, profile, static.url, app_url(static.url, server_url))
    finally:
        static.stop()
        if agent:
            agent.stop()
    files = results.pop("cold_files", [])
    med = {k: median(v) for k, v in results.items()}
    med["cold_over_bare"] = med["cold"] / med["bare"]
    med["warm_over_cold"] = med["warm"] / med["cold"]
    return {"profile": profile.name, "runs": results, "median": med, "agent_server": bool(agent),
            "files": file_sizes(dist, files[-1] if files else {}, static.url)}


def file_sizes(dist: Path, transferred: dict[str, int], site_url: str) -> dict[str, dict[str, int]]:
    """Per file the first visit fetched: its raw size, its .br and .gz siblings (0: none kept) and
    the bytes the browser received for it."""
    base = "/" + site_url.split("/", 3)[3] if site_url.count("/") >= 3 else "/"
    sizes = {}
    for path, wire in sorted(transferred.items()):
        rel = path[len(base):] if path.startswith(base) else path.lstrip("/")
        local = dist / (rel or "index.html")
        if not local.is_file():
            continue
        sibling = {s: (local.with_name(local.name + "." + s)) for s in ("br", "gz")}
        sizes[rel or "index.html"] = {"raw": local.stat().st_size, "wire": int(wire),
                                      **{s: p.stat().st_size if p.exists() else 0 for s, p in sibling.items()}}
    return sizes


def _file_lines(files: dict[str, dict[str, int]]) -> list[str]:
    lines = [f"  {'file (first visit)':52} {'raw':>10} {'br':>10} {'gz':>10} {'wire':>10}"]
    for rel, f in files.items():
        name = rel if len(rel) <= 52 else "..." + rel[-49:]
        lines.append(f"  {name:52} {f['raw']:10d} {f['br'] or '-':>10} {f['gz'] or '-':>10} {f['wire']:10d}")
    return lines


def _target_lines(res: dict[str, Any]) -> list[str]:
    m, t = res["median"], TARGETS
    lines = [f"  first-visit bytes {m['cold_bytes'] / 1e6:.2f} MB (target <= {t['first_visit_mb']} MB; "
             f"bare Pyodide served the same way {m['bare_bytes'] / 1e6:.2f} MB)"]
    if res["profile"] == "phone":
        lines.append(f"  phone cold {m['cold'] / 1e3:.1f} s (target <= {t['phone_cold_s']} s), cold / bare "
                     f"{m['cold_over_bare']:.2f} (target <= {t['phone_cold_over_bare']}), warm "
                     f"{m['warm'] / 1e3:.1f} s (target <= {t['phone_warm_s']} s), first usable input (the form "
                     f"painted, a press on Start kept) {m['cold_usable'] / 1e3:.2f} s (target <= "
                     f"{t['phone_first_input_s']} s)")
    else:
        lines.append(f"  desktop warm / cold {m['warm_over_cold']:.2f} (target <= {t['desktop_warm_over_cold']})")
    return lines


def report(res: dict[str, Any]) -> list[str]:
    """The figures as the developer reads them."""
    m, n = res["median"], len(res["runs"]["cold"])
    return _file_lines(res.get("files", {})) + _target_lines(res) + [
        f"boot benchmark [{res['profile']}], {n} runs, medians (ms from navigation start):",
        f"  bare Pyodide + same packages : {m['bare']:8.0f}   (python ready {m['bare_python']:.0f}, "
        f"{m['bare_bytes'] / 1e6:.1f} MB received)",
        f"  Sitewalk cold (interactive)  : {m['cold']:8.0f}   (first paint {m['cold_paint']:.0f}, python ready "
        f"{m['cold_python']:.0f}, packages {m['cold_packages']:.0f}, main() {m['cold_main']:.0f}, "
        f"{m['cold_bytes'] / 1e6:.1f} MB received)",
        f"  Sitewalk warm (sw cache)     : {m['warm']:8.0f}   (python ready {m['warm_python']:.0f}, "
        f"packages {m['warm_packages']:.0f}, main() {m['warm_main']:.0f})",
        f"  cold / bare = {m['cold_over_bare']:.2f}",
        f"  warm / cold = {m['warm_over_cold']:.2f}",
        f"  CPU probe (2e7 loop in the page) = {m['cpu_probe']:.0f} ms",
    ]


def cmd_bench(args: argparse.Namespace) -> int:
    names = list(PROFILES) if args.profile == "all" else [args.profile]
    results = []
    for name in names:
        res = run_bench(args.runs, Path(args.dist), profile=PROFILES[name])
        if not res["agent_server"]:
            print("(no langgraph.json: the app was pointed at a closed port)")
        print("\n".join(report(res)), flush=True)
        results.append(res)
    out = Path(args.json) if args.json else BENCH_DIR / "boot.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results if len(results) > 1 else results[0], indent=1))
    print(f"figures written to {out}", flush=True)
    return 0
