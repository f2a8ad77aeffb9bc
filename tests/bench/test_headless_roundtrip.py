"""Headless tool round trip in Chromium (run by `./sw bench`): Sitewalk in Pyodide vs a minimal JS fetch loop.

The round trip: the interrupt event is seen in the run's stream → the result is posted (resume) →
the next event of the resumed run arrives. Both sides run in the same page against the same agent
server, interleaved, on fresh threads of the same scenario (the agent's first call is
read_local_draft). Sitewalk's side is what the session does: read the pending interrupts from the
thread's state, run the tool through the registry (contract validation, envelope), resume with
the browser transport. The baseline reads the interrupt id from the event and posts a fixed JSON.

The in-memory server's run queue adds about a second before each run starts, on both sides; the
figures are printed with and without it (time to the resumed run's first event, and the client's
own part: interrupt seen → resume request sent). Only the round trip's shape is asserted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_bench import RUN_PY, booted_app_page, med  # noqa: E402

pytestmark = pytest.mark.bench

RUNS = 7

SITEWALK = r'''
import json, js
from sitewalk.agentserver.client import AgentServerClient, pending_interrupts
from sitewalk.bridge.fetch import BrowserTransport
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from memory_storage import MemoryStore

async def _sitewalk_roundtrip(server):
    client = AgentServerClient(server, transport=BrowserTransport())  # as the app makes it
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(MemoryStore(
        {draft_key("inspection-42"): json.dumps({"site": "Pier 4", "risk": "medium"})})))
    thread = (await client.threads.create())["thread_id"]
    seen = None
    streamed = []  # as the session does: answer from the interrupts the stream raised, no state read
    async for part in client.runs.stream(thread, "inspection", stream_mode=["updates"], input={
            "messages": [{"role": "user", "content": "Start inspection inspection-42"}],
            "client_tools": registry.manifest()}):
        if part.event == "updates" and isinstance(part.data, dict) and "__interrupt__" in part.data:
            seen = js.performance.now()
            streamed.extend(part.data["__interrupt__"])
    [pending] = pending_interrupts({"interrupts": streamed})
    answer = await registry.answer(pending["value"])
    sent = js.performance.now()
    first = None
    async for part in client.runs.stream(thread, "inspection", stream_mode=["updates"],
                                         command={"resume": {pending["id"]: answer}}):
        if first is None:
            first = js.performance.now()
    return json.dumps({"total": first - seen, "client": sent - seen, "ok": bool(answer)})
'''

JS_LOOP = r"""async (server) => {
  const post = (path, body) => fetch(server + path, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                      body: JSON.stringify(body)});
  const events = async function* (response) {
    const reader = response.body.getReader(), decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buf += decoder.decode(value, {stream: true}).replace(/\r\n/g, '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i); buf = buf.slice(i + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        const event = (block.split('\n').find((l) => l.startsWith('event:')) || 'event: message').slice(6).trim();
        if (data) yield {event, data: JSON.parse(data)};
      }
    }
  };
  const thread = (await (await post('/threads', {})).json()).thread_id;
  let seen = null, interrupt = null;
  for await (const e of events(await post(`/threads/${thread}/runs/stream`, {assistant_id: 'inspection',
      stream_mode: ['updates'], input: {messages: [{role: 'user', content: 'Start inspection inspection-42'}]}}))) {
    if (e.event === 'updates' && e.data.__interrupt__) {
      seen = performance.now(); interrupt = e.data.__interrupt__[0];
    }
  }
  const call = interrupt.value.tool_call;
  const result = {ok: true, protocol: 1, tool: call.name, tool_call_id: call.id,
                  result: {inspection_id: 'inspection-42', site: 'Pier 4', risk: 'medium'}};
  const sent = performance.now();
  let first = null;
  for await (const e of events(await post(`/threads/${thread}/runs/stream`, {assistant_id: 'inspection',
      stream_mode: ['updates'], command: {resume: {[interrupt.id]: {[call.id]: result}}}}))) {
    if (first === null) first = performance.now();
  }
  return JSON.stringify({total: first - seen, client: sent - seen, ok: true});
}"""


@pytest.fixture(scope="module")
def page(agent_server):
    with booted_app_page(agent_server, SITEWALK) as booted:
        yield booted


def test_headless_round_trip_sitewalk_vs_minimal_js_fetch_loop(page, agent_server):
    sitewalk, baseline = [], []
    for _ in range(RUNS):  # interleaved, so drift in the server hits both alike
        sitewalk.append(json.loads(page.evaluate(RUN_PY, f"await _sitewalk_roundtrip({agent_server!r})")))
        baseline.append(json.loads(page.evaluate(JS_LOOP, agent_server)))
    s_total, b_total = med([r["total"] for r in sitewalk]), med([r["total"] for r in baseline])
    s_client, b_client = med([r["client"] for r in sitewalk]), med([r["client"] for r in baseline])
    print(f"\nheadless round trip, median of {RUNS} (interrupt seen -> resume posted -> next event):")
    print(f"  Sitewalk (Pyodide)  {s_total:7.1f} ms   client part {s_client:6.1f} ms")
    print(f"  minimal JS fetch    {b_total:7.1f} ms   client part {b_client:6.1f} ms")
    print(f"  ratio {s_total / b_total:.2f}x (target <= 1.2x); client-part difference {s_client - b_client:+.1f} ms")
    assert all(r["ok"] for r in sitewalk + baseline)
