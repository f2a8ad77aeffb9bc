"""Browser benchmarks of the generative UI, in Chromium with Pyodide (run by `./sw bench`).

- a 500-element spec: full render by the keyed renderer, and the baseline (jinja render of the
  whole tree + one innerHTML, through the page's Trusted Types policy as the app writes it);
- one prop changed in that screen: DOM mutation records (MutationObserver) and time of the keyed
  update against a full re-render;
- a 100 KB spec streamed in 20-byte fragments (SpecStream in Pyodide) against one json.loads and
  one JSON.parse of the final text, at 25, 50 and 100 KB (the ratio shows whether it is linear).

Figures and ratios are printed; only correctness (which element mutated) is asserted, never time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_bench import RUN_PY, booted_app_page, med  # noqa: E402
from test_ui_stream import spec_of  # noqa: E402

pytestmark = pytest.mark.bench

OBSERVE = """(id) => { window.__muts = []; window.__obs = new MutationObserver((rs) => { for (const r of rs)
  window.__muts.push({target: r.target.dataset ? (r.target.dataset.swId || r.target.id) : '#text',
                      added: [...r.addedNodes].map((n) => n.dataset ? n.dataset.swId || '' : '#text')}); });
  window.__obs.observe(document.getElementById(id), {subtree: true, childList: true, attributes: true,
                                                     characterData: true}); }"""
RECORDS = ("() => { for (const r of window.__obs.takeRecords()) window.__muts.push({target: 'late'});"
           " window.__obs.disconnect(); return window.__muts; }")

SETUP = r'''
import json, time
import js
from sitewalk.app.renderer import KeyedRenderer
from sitewalk.bridge import dom
from sitewalk.ui.render import render_spec
from sitewalk.ui.spec_stream import SpecStream

def big_spec(n):
    kinds = [("Field", lambda i: {"label": f"Item {i}", "value": f"value {i}"}),
             ("Text", lambda i: {"text": f"Finding {i}: corrosion on the rail"}),
             ("RiskBadge", lambda i: {"level": ["low", "medium", "high", "critical"][i % 4]})]
    elements = {"root": {"type": "Stack", "props": {"gap": "sm"}, "children": []}}
    for i in range(n - 1):
        kind, props = kinds[i % 3]
        elements[f"e{i}"] = {"type": kind, "props": props(i), "children": []}
        elements["root"]["children"].append(f"e{i}")
    return {"root": "root", "elements": elements}

for cid in ("sw-bench-keyed", "sw-bench-full"):
    if type(js.document.getElementById(cid)).__name__ in ("JsNull", "NoneType"):
        d = js.document.createElement("div"); d.id = cid; js.document.getElementById("app").appendChild(d)
now = js.performance.now
'''


@pytest.fixture(scope="module")
def page(agent_server):
    with booted_app_page(agent_server, SETUP) as booted:
        yield booted


def py(page, code):
    return page.evaluate(RUN_PY, code)


def test_500_element_render_and_one_prop_changed(page):
    runs = 7
    full, keyed_first = [], []
    for _ in range(runs):
        out = json.loads(py(page, r'''
spec = big_spec(500)
t0 = now(); html = render_spec(spec); dom.set_html("sw-bench-full", html); t1 = now()
r = KeyedRenderer("sw-bench-keyed"); r.show(spec); r.flush(); t2 = now()
json.dumps([t1 - t0, t2 - t1, len(r._nodes)])
'''))
        full.append(out[0])
        keyed_first.append(out[1])
        assert out[2] == 500
    # one prop changed: the keyed update vs rendering the whole screen again
    update_times, full_times, keyed_records, full_records = [], [], [], []
    for i in range(runs):
        page.evaluate(OBSERVE, "sw-bench-keyed")
        t = json.loads(py(page, f'''
new = json.loads(json.dumps(r.shown)); new["elements"]["e249"]["props"]["value"] = "changed {i}"
t0 = now(); r.show(new); r.flush(); t1 = now()
json.dumps(t1 - t0)'''))
        records = page.evaluate(RECORDS)
        update_times.append(t)
        keyed_records.append(records)
        page.evaluate(OBSERVE, "sw-bench-full")
        t = json.loads(py(page, '''
t0 = now(); dom.set_html("sw-bench-full", render_spec(new)); t1 = now()
json.dumps(t1 - t0)'''))
        full_records.append(page.evaluate(RECORDS))
        full_times.append(t)
    for records in keyed_records:
        assert records == [{"target": "root", "added": ["e249"]}], records  # that one element, nothing else
    full_nodes = page.evaluate("() => document.querySelectorAll('#sw-bench-full [data-sw-id]').length")
    print()
    print(f"ui-render 500 elements, full render: keyed renderer {med(keyed_first):.1f} ms, "
          f"baseline jinja + innerHTML {med(full):.1f} ms, ratio {med(keyed_first) / med(full):.2f}x")
    print(f"ui-render one prop changed in 500: keyed update {med(update_times):.2f} ms, "
          f"{len(keyed_records[0])} mutation record (element e249 only); full re-render "
          f"{med(full_times):.1f} ms, {len(full_records[0])} record replacing {full_nodes} elements; "
          f"ratio {med(update_times) / med(full_times):.3f}x (target <= 0.1x)")


def _stream_spec_text(n_bytes):
    return json.dumps(spec_of(n_bytes))  # the CPython stream benchmark's spec


def test_streamed_spec_in_pyodide_against_one_parse(page):
    print()
    for size in (25_000, 50_000, 100_000):
        text = _stream_spec_text(size)
        out = json.loads(py(page, f'''
text = {json.dumps(text)}
pieces = [text[i:i + 20] for i in range(0, len(text), 20)]
ts, tl, tj = [], [], []
for _ in range(5):
    t0 = now(); s = SpecStream()
    for p in pieces:
        s.feed(p)
    s.close(); t1 = now(); json.loads(text); t2 = now(); js.JSON.parse(text); t3 = now()
    ts.append(t1 - t0); tl.append(t2 - t1); tj.append(t3 - t2)
med = lambda xs: sorted(xs)[len(xs) // 2]
json.dumps([med(ts), med(tl), med(tj), len(pieces)])'''))
        t_stream, t_loads, t_parse, n = out
        print(f"ui-stream Pyodide {size // 1000:>3} KB in {n} 20-byte fragments: {t_stream:7.1f} ms; one json.loads "
              f"{t_loads:5.2f} ms (ratio {t_stream / max(t_loads, 1e-3):6.1f}x); one JSON.parse {t_parse:5.2f} ms "
              f"(ratio {t_stream / max(t_parse, 1e-3):6.1f}x)")
