"""Timeline first paint and memory with paging, against fetching the whole history in one call.

A thread of 1,000 checkpoints (recorded real entries, chained and grown like a long inspection: every
checkpoint carries the messages so far) is served by a tiny loopback HTTP server that answers
`POST /threads/{id}/history` with `limit` and `before` as the agent server does. The code under test is
the real one: `AgentServerClient` over HTTP, `TimelinePager`, the tree and the step names, and the
`timeline.j2` template. Baseline, same run: one `get_history(limit=1000)` built into the same steps.

Scrolling on: the cost of loading one more page at depth N (the page's fetch, the tree, what is shown,
and the list's draw), the list drawn as the view draws it (`plan_draw`: only the new rows rendered)
against rendering the whole list again on every page (what the view did before), same run, same pages.
Only the Python side is timed (no DOM here): in the browser the full redraw also re-parses every row.

Run: python -m pytest tests/bench/test_timeline_bench.py -s
Targets: first paint <= 0.2x fetch-all at 100 checkpoints, <= 0.05x at 1,000; memory kept at 1,000 <= 0.05x
fetch-all's (each keeps its tree: the facts of the steps it read, not the responses); memory flat from 100 to
1,000 checkpoints.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import sys
import threading
import time
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from recorded import load_history  # noqa: E402

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.timeline import Append, StaleGuard, TimelinePager, TimelineTree, plan_draw, shown
from sitewalk.ui.render import render_template

RECORDED = load_history("confirm_fork.json")


def _history(n: int) -> list[bytes]:
    """n checkpoints of one thread, newest first, each serialized once (the server's JSON)."""
    templates = [e for e in reversed(RECORDED["all"]) if e["values"].get("messages")]
    pool = [m for e in templates for m in e["values"]["messages"]]
    entries = []
    for i in range(n):
        entry = copy.deepcopy(templates[i % len(templates)])
        count = i // 10 + 1  # the conversation grows: every checkpoint carries all messages so far
        entry["values"]["messages"] = [{**pool[k % len(pool)], "id": f"m{k}"} for k in range(count)]
        entry["checkpoint"] = {"checkpoint_id": f"cp-{i:06d}", "thread_id": "t"}
        entry["parent_checkpoint"] = {"checkpoint_id": f"cp-{i - 1:06d}"} if i else None
        entry["metadata"] = {**entry["metadata"], "step": i}
        entries.append(json.dumps(entry).encode())
    return entries[::-1]


class _History(BaseHTTPRequestHandler):
    # As the agent server (uvicorn) does: the connection is kept between requests and replies go out at once
    # (HTTP/1.0 opened a connection a page; Nagle held a small reply's body back until the next ACK).
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    entries: list[bytes] = []
    index: dict[str, int] = {}

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        before = ((body.get("before") or {}).get("configurable") or {}).get("checkpoint_id")
        start = self.index[before] + 1 if before else 0
        payload = b"[" + b",".join(self.entries[start:start + int(body.get("limit", 10))]) + b"]"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


def _serve(n: int) -> tuple[ThreadingHTTPServer, str]:
    entries = _history(n)
    handler = type("Handler", (_History,), {"entries": entries, "index": {
        json.loads(e)["checkpoint"]["checkpoint_id"]: i for i, e in enumerate(entries)}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _paint(tree: TimelineTree) -> str:
    return render_template("timeline.j2", rows=shown("t", tree).rows)


def _check_drawn(tree: TimelineTree, html: str) -> None:
    """Every row is one `<li>` (a turn's checks fold into one row, so rows can be fewer than steps)."""
    assert html.count("<li") == len(shown("t", tree).rows) > 0


async def _first_paint(url: str) -> tuple[float, int, int, Any, float]:
    """First paint: the first screen drawn (`first_page`'s `first_screen`); memory once the whole first page
    is in and drawn; and when that was."""
    async with AgentServerClient(url) as client:
        async def page(limit: int, before: str | None) -> Any:
            return await client.threads.get_history("t", limit=limit, before=before)

        painted: list[tuple[float, int, int]] = []  # (when, rows, <li> drawn) of the first screen's draw

        async def first_screen(tree: TimelineTree) -> None:
            html = _paint(tree)
            painted.append((time.perf_counter() - t0, len(shown("t", tree).rows), html.count("<li")))

        await client.threads.get_history("t", limit=1)  # warm the connection for both sides alike
        tracemalloc.start()
        t0 = time.perf_counter()
        tree = await TimelinePager("t", page, StaleGuard()).first_page(first_screen)
        html = _paint(tree)  # the whole first page (the app appends the rest under the first screen)
        whole_page = time.perf_counter() - t0
        gc.collect()  # what stays is what the timeline holds, not a response waiting for the collector
        kept, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        (elapsed, rows, drawn), = painted
        assert drawn == rows > 0
        _check_drawn(tree, html)
        return elapsed, kept, peak, tree, whole_page


async def _fetch_all(url: str, n: int) -> tuple[float, int, int]:
    async with AgentServerClient(url) as client:
        await client.threads.get_history("t", limit=1)
        tracemalloc.start()
        t0 = time.perf_counter()
        history = await client.threads.get_history("t", limit=n)
        tree = TimelineTree()
        tree.add_page(history, n)
        html = _paint(tree)
        elapsed = time.perf_counter() - t0
        del history  # what stays is what the timeline holds (the tree), not the response it was built from
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(tree) == n
        _check_drawn(tree, html)
        return elapsed, kept, peak


def _best(runs: int, *makers: Any) -> list[Any]:
    """The fastest run of each, the runs taken in turn (the machine is shared: both sides see the same load)."""
    results: list[list[Any]] = [[] for _ in makers]
    for _ in range(runs):
        for make, found in zip(makers, results, strict=True):
            found.append(asyncio.run(make()))
    return [min(found, key=lambda r: r[0]) for found in results]


TARGETS = {100: 0.2, 1000: 0.05}  # first paint against fetch-all, and at 1,000 the memory kept too
RUNS = {100: 7, 1000: 3}  # the best of these many runs each side (noise on a shared machine only adds)


def test_bench_timeline_first_paint_and_memory_with_paging():
    figures = {}
    for n, target in TARGETS.items():
        server, url = _serve(n)
        try:
            paged, whole = _best(RUNS[n], lambda url=url: _first_paint(url), lambda url=url, n=n: _fetch_all(url, n))
        finally:
            server.shutdown()
        figures[n] = (paged, whole)
        print(f"\n{n} checkpoints: first paint {paged[0] * 1e3:.1f} ms "
              f"(the whole first page at {paged[4] * 1e3:.1f} ms; "
              f"kept {paged[1] / 1024:.0f} KiB, "
              f"peak {paged[2] / 1024:.0f} KiB); fetch-all {whole[0] * 1e3:.1f} ms (kept {whole[1] / 1024:.0f} KiB, "
              f"peak {whole[2] / 1024:.0f} KiB); time ratio {paged[0] / whole[0]:.3f} (target <= {target}), "
              f"kept ratio {paged[1] / whole[1]:.4f}")
    (p100, _), (p1000, w1000) = figures[100], figures[1000]
    print(f"memory with paging, 1,000 vs 100 checkpoints: kept {p1000[1] / p100[1]:.2f}x, "
          f"peak {p1000[2] / p100[2]:.2f}x (flat = ~1x; the peak is the first page's response, whose entries "
          f"carry every message so far); "
          f"fetch-all at 1,000 peaks at {w1000[2] / p1000[2]:.0f}x the paged peak")
    assert len(p1000[3]) == 20 and p1000[3].cursor == "cp-000980"  # one page, and the cursor to go on


async def _scroll(url: str) -> list[tuple[float, float, float]]:
    """Every page of the thread in turn: (load, full redraw, append draw) seconds for each page after the first."""
    async with AgentServerClient(url) as client:
        async def page(limit: int, before: str | None) -> Any:
            return await client.threads.get_history("t", limit=limit, before=before)

        pager = TimelinePager("t", page, StaleGuard())
        drawn = shown("t", await pager.first_page())
        rows = str(render_template("timeline.j2", rows=drawn.rows))
        costs = []
        while not pager.tree.exhausted:
            t0 = time.perf_counter()
            await pager.older()
            now = shown("t", pager.tree)
            t1 = time.perf_counter()
            whole = str(render_template("timeline.j2", rows=now.rows))  # the baseline: the list drawn again
            t2 = time.perf_counter()
            plan = plan_draw(drawn, now)
            assert isinstance(plan, Append) and len(plan.changed) <= 1, plan
            changed = [str(render_template("timeline.j2", rows=[row])) for row in plan.changed]  # in place
            rows += str(render_template("timeline.j2", rows=plan.rows))
            t3 = time.perf_counter()
            assert all(c.count("<li") == 1 for c in changed) and rows.count("<li") == whole.count("<li")
            costs.append((t1 - t0, t2 - t1, t3 - t2))
            drawn = now
        return costs


def test_bench_timeline_loading_one_more_page_appends_instead_of_redrawing():
    server, url = _serve(1000)
    try:
        runs = [asyncio.run(_scroll(url)) for _ in range(3)]
    finally:
        server.shutdown()
    # per page, the best of the runs: (load + full redraw, load + append), and the draws alone
    best = [(min(r[0] + r[1] for r in page), min(r[0] + r[2] for r in page)) for page in zip(*runs, strict=True)]
    draws = [(min(r[1] for r in page), min(r[2] for r in page)) for page in zip(*runs, strict=True)]
    depth = 10  # page 10: 180 rows drawn, 20 more
    redraw, append = best[depth - 2]
    print(f"\nloading page {depth} of 1,000 checkpoints (load + draw): appending {append * 1e3:.1f} ms, "
          f"redrawing the list {redraw * 1e3:.1f} ms; ratio {append / redraw:.2f}")
    redraw_all, append_all = sum(r for r, _ in best), sum(a for _, a in best)
    last_redraw, last_append = best[-1]
    print(f"scrolling through 1,000 checkpoints ({len(best) + 1} page reads): appending {append_all * 1e3:.0f} ms, "
          f"redrawing on every page {redraw_all * 1e3:.0f} ms; ratio {append_all / redraw_all:.2f}; the last page "
          f"{last_append * 1e3:.1f} ms vs {last_redraw * 1e3:.1f} ms")
    print(f"the draw alone, page {depth}: {draws[depth - 2][1] * 1e3:.2f} ms appending vs "
          f"{draws[depth - 2][0] * 1e3:.2f} ms redrawing; last page: {draws[-1][1] * 1e3:.2f} ms vs "
          f"{draws[-1][0] * 1e3:.2f} ms")
    assert len(best) >= 49  # 1,000 checkpoints in pages of 20: the first and 49 more (and an empty one)
