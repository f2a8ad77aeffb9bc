"""Tracing end to end (issue 27): Chromium drives an inspection on an agent server that traces into a real
Phoenix (`traced_server`, `phoenix`), and the spans are read back through Phoenix's own API.

One inspection (a denied geolocation, the draft read, its screen, then a per-call review of the proposed
work orders) is one trace: every run of the thread under the inspection's root span, the headless calls'
and the review's spans named by the traceparent their interrupt values carried. A replay, and a fork made in
the app (an edit of a step), are each a trace of their own, linked to the inspection they left, which gains
none of their runs. With tracing on in the browser too (config.json's "traces", served
as tests/e2e/test_tracing_in_browser.py does), the device's spans are in that one trace, nested under the
server span their interrupt named (a review decision's under the review span), each naming the checkpoint its
step started from (`sitewalk.checkpoint_id`); a denied position is an
error span with its typed code; and a sentinel in the local-only field of the draft (`notes`) is in no
span Phoenix stored, of either side.
Runs on both servers (`./sw test-durable` for Aegra)."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import poll
from playwright.sync_api import expect
from test_tracing_in_browser import traces_on

import build
from sitewalk_shared.contracts.trace_wire import inspection_root

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana", "findings": ["crack"], "risk": "low"}
ROOT_SPAN = "sitewalk.inspection"  # sitewalk_agent.tracing.run_context.ROOT_SPAN
REVIEW_SPAN = "sitewalk.review"  # sitewalk_agent.tracing.interrupts.REVIEW_SPAN


def _thread_id(app) -> str:
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def _say(app, text: str) -> None:
    app.page.fill("#sw-message", text)
    app.page.click("#sw-send")


SENTINEL = "SENTINEL-local-only-7f3a"  # in the draft's notes, the one local-only field (contracts.tools)


def _inspection(app, inspection_id: str) -> str:
    """Start with a denied geolocation, read the draft onto the screen, then approve one proposed work order."""
    app.open()
    draft = {**DRAFT, "inspection_id": inspection_id, "notes": SENTINEL}
    app.seed_idb(f"sitewalk:draft:{inspection_id}", json.dumps(draft))
    app.begin(inspection_id, "script: locate")
    dialog = app.page.get_by_role("dialog", name="Share this device's position?")
    dialog.get_by_role("button", name="Allow").click()  # headless Chromium then denies: no grant
    app.page.get_by_role("dialog", name="Type the position?").get_by_role("button", name="Don't share").click()
    app.wait_finished(inspection_id)
    assert "Pier 4, north berth" in app.page.locator("#sw-screen").inner_text()
    _say(app, "propose the work orders")
    cards = app.page.locator("#sw-reviews article.sw-review")
    app.wait_status(inspection_id, "waiting for your review (3)")
    app.open()  # the cards of reviews a follow-up asked for are drawn when the inspection is reopened
    expect(cards).to_have_count(3, timeout=60_000)
    order = app.page.locator("#sw-reviews article.sw-review[data-tool='create_work_order']").first
    order.get_by_role("button", name="Approve").click()
    app.page.locator("#sw-reviews [data-review-action='send']").click()
    expect(cards).to_have_count(2, timeout=60_000)
    return _thread_id(app)


def _children(spans: list[dict], parent_id: str) -> list[dict]:
    return [s for s in spans if s.get("parent_id") == parent_id]


def _runs_done(trace_id: str, runs: int):
    def check(spans: list[dict]) -> bool:
        mine = [s for s in spans if s["context"]["trace_id"] == trace_id]
        return sum(s["name"] == "inspection" for s in mine) >= runs and any(s["name"] == ROOT_SPAN for s in mine)
    return check


def test_an_inspections_server_spans_are_one_trace_in_phoenix(app_for, traced_server, phoenix):
    app = app_for(traced_server)
    thread_id = _inspection(app, f"inspection-traced-{uuid.uuid4().hex[:6]}")
    root = inspection_root(thread_id)
    runs = httpx.get(f"{traced_server}/threads/{thread_id}/runs", params={"limit": 50}, timeout=30).json()
    spans = phoenix.wait_for(_runs_done(root.trace_id, len(runs)))
    trace = [s for s in spans if s["context"]["trace_id"] == root.trace_id]
    # one trace: the root span with the agreed ids, each run of the thread a child of it
    [top] = [s for s in trace if s["name"] == ROOT_SPAN]
    assert top["context"]["span_id"] == root.span_id and not top.get("parent_id")
    assert len([s for s in _children(trace, root.span_id) if s["name"] == "inspection"]) == len(runs) >= 4
    assert not [s for s in spans if s["attributes"].get("sitewalk.thread_id") == thread_id
                and s["context"]["trace_id"] != root.trace_id]
    names = {s["name"] for s in trace}
    assert {"get_current_location", "read_local_draft", "render_ui", REVIEW_SPAN, "create_work_order"} <= names
    reviews = [s for s in trace if s["name"] == REVIEW_SPAN]
    assert len(reviews) >= 3 and all(s["attributes"]["sitewalk.tool_call_id"] for s in reviews)


def _checkpoints(server: str, thread_id: str) -> set[str]:
    history = httpx.post(f"{server}/threads/{thread_id}/history", json={"limit": 200}, timeout=30).json()
    return {str(h["checkpoint"]["checkpoint_id"]) for h in history}


def _review_checkpoint(server: str, thread_id: str) -> str:
    """The checkpoint where the proposed work orders waited for their reviews."""
    history = httpx.post(f"{server}/threads/{thread_id}/history", json={"limit": 100}, timeout=30).json()
    waiting = [h for h in history if any(((i.get("value") or {}).get("type") == "tool_approval")
                                         for t in h.get("tasks", []) for i in t.get("interrupts", []))]
    return str(waiting[-1]["checkpoint"]["checkpoint_id"])  # the oldest: before any decision


def test_a_replay_is_a_trace_of_its_own_linked_to_the_inspection_it_left(app_for, traced_server, phoenix):
    app = app_for(traced_server)
    thread_id = _inspection(app, f"inspection-replay-{uuid.uuid4().hex[:6]}")
    checkpoint = _review_checkpoint(traced_server, thread_id)
    body = {"assistant_id": "inspection", "input": None, "checkpoint_id": checkpoint}
    httpx.post(f"{traced_server}/threads/{thread_id}/runs/wait", json=body, timeout=120).raise_for_status()
    replay, left = inspection_root(thread_id, checkpoint), inspection_root(thread_id)
    spans = phoenix.wait_for(_runs_done(replay.trace_id, 1))
    trace = [s for s in spans if s["context"]["trace_id"] == replay.trace_id]
    [top] = [s for s in trace if s["name"] == ROOT_SPAN]
    assert top["context"]["span_id"] == replay.span_id
    assert top["attributes"]["sitewalk.forked_from"] == checkpoint
    assert (top["attributes"]["sitewalk.forked_from_trace_id"], top["attributes"]["sitewalk.forked_from_span_id"]) \
        == (left.trace_id, left.span_id)
    # the replay asked for the reviews again, in its own trace; the inspection's trace has none of its runs
    assert any(s["name"] == REVIEW_SPAN for s in trace)
    assert all(s["attributes"].get("sitewalk.forked_from") == checkpoint for s in trace)


def _forked(thread_id: str):
    """Phoenix holds the root of a fork of this thread and a run in its trace."""
    def check(spans: list[dict]) -> bool:
        roots = [s for s in spans if s["name"] == ROOT_SPAN and s["attributes"].get("sitewalk.thread_id") == thread_id
                 and s["attributes"].get("sitewalk.forked_from")]
        traces = {s["context"]["trace_id"] for s in roots}
        return any(s["name"] == "inspection" and s["context"]["trace_id"] in traces for s in spans)
    return check


def test_a_fork_made_in_the_app_is_a_trace_of_its_own_and_the_inspections_trace_gains_none_of_its_runs(
        app_for, traced_server, phoenix):
    """The app's fork (an edit of the inspector's first message: update_state at its checkpoint, then a run from
    the checkpoint that made), with device tracing on: the fork's root names the checkpoint it left from and links
    to the inspection's root; its runs and the device's spans of its screen are in its trace, not the inspection's."""
    app = app_for(traced_server)
    traces_on(app.page)
    first, second = f"inspection-fork-{uuid.uuid4().hex[:6]}", f"inspection-forked-{uuid.uuid4().hex[:6]}"
    app.open()
    app.seed_draft(first, DRAFT)
    app.seed_draft(second, {**DRAFT, "site": "Dock 2, south quay"})
    app.start(first)
    thread_id, root = _thread_id(app), inspection_root(_thread_id(app))
    runs = httpx.get(f"{traced_server}/threads/{thread_id}/runs", params={"limit": 50}, timeout=30).json()
    before = phoenix.wait_for(_runs_done(root.trace_id, len(runs)))
    inspection_runs = {s["context"]["span_id"] for s in before
                       if s["context"]["trace_id"] == root.trace_id and s["name"] == "inspection"}
    page = app.page
    page.locator("#sw-timeline li[data-kind='you']").last.locator("[data-sw-travel='edit']").click()
    page.fill("#sw-edit-text", f"Start inspection {second}")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator("#sw-screen [data-sw-id='card']", has_text="Dock 2, south quay").wait_for(timeout=60_000)
    spans = phoenix.wait_for(_forked(thread_id), timeout=90)
    [top] = [s for s in spans if s["name"] == ROOT_SPAN and s["attributes"].get("sitewalk.thread_id") == thread_id
             and s["attributes"].get("sitewalk.forked_from")]
    fork_checkpoint = top["attributes"]["sitewalk.forked_from"]
    fork = inspection_root(thread_id, fork_checkpoint)
    assert (top["context"]["trace_id"], top["context"]["span_id"]) == (fork.trace_id, fork.span_id)
    assert fork.trace_id != root.trace_id and fork_checkpoint in _checkpoints(traced_server, thread_id)
    assert (top["attributes"]["sitewalk.forked_from_trace_id"], top["attributes"]["sitewalk.forked_from_span_id"]) \
        == (root.trace_id, root.span_id)
    trace = [s for s in spans if s["context"]["trace_id"] == fork.trace_id]
    assert any(s["name"] == "inspection" and s.get("parent_id") == fork.span_id for s in trace)
    assert all(s["attributes"].get("sitewalk.forked_from") == fork_checkpoint for s in trace
               if s["attributes"].get("sitewalk.origin") != "device")
    # the device followed the fork: its screen of the fork's run is in the fork's trace
    spans = phoenix.wait_for(lambda got: any(s["name"] == "device.screen" and s["context"]["trace_id"] == fork.trace_id
                                             for s in _device(got)), timeout=90)
    # the inspection's own trace gained none of the fork's runs, nor any span of the fork
    after = {s["context"]["span_id"] for s in spans
             if s["context"]["trace_id"] == root.trace_id and s["name"] == "inspection"}
    assert after == inspection_runs
    assert not [s for s in spans if s["context"]["trace_id"] == root.trace_id
                and s["attributes"].get("sitewalk.forked_from") == fork_checkpoint]


def _device(spans: list[dict]) -> list[dict]:
    return [s for s in spans if s["attributes"].get("sitewalk.origin") == "device"]


def _joined(trace_id: str):
    def check(spans: list[dict]) -> bool:
        names = {s["name"] for s in _device(spans) if s["context"]["trace_id"] == trace_id}
        return {"device.headless_tool", "device.screen", "device.permission", "device.review_decision"} <= names
    return check


def test_one_inspection_is_one_trace_with_the_devices_spans_under_the_servers_and_no_local_field(
        app_for, traced_server, phoenix):
    app = app_for(traced_server)
    traces_on(app.page)
    inspection_id = f"inspection-joined-{uuid.uuid4().hex[:6]}"
    thread_id = _inspection(app, inspection_id)
    assert SENTINEL in app.idb_get(f"sitewalk:draft:{inspection_id}")  # the local-only field was there to leak
    root = inspection_root(thread_id)
    spans = phoenix.wait_for(_joined(root.trace_id), timeout=90)
    trace = [s for s in spans if s["context"]["trace_id"] == root.trace_id]
    by_id = {s["context"]["span_id"]: s for s in trace}
    # every device span of this thread is in the inspection's trace, under a span that is in it too
    device = [s for s in _device(spans) if s["attributes"].get("sitewalk.thread_id") == thread_id]
    assert device and all(s["context"]["trace_id"] == root.trace_id for s in device)
    assert all(s.get("parent_id") in by_id for s in device)
    # the headless calls' device spans are children of the tool call's span (the interrupt's traceparent)
    for tool in _device(trace):
        if tool["name"] == "device.headless_tool":
            server_span = by_id[tool["parent_id"]]
            assert server_span["name"] == tool["attributes"]["sitewalk.tool_name"]
            assert server_span["attributes"]["sitewalk.tool_call_id"] == tool["attributes"]["sitewalk.tool_call_id"]
    # a denied position: an error span with the typed code
    [located] = [s for s in _device(trace) if s["name"] == "device.headless_tool"
                 and s["attributes"]["sitewalk.tool_name"] == "get_current_location"]
    assert (located["status_code"], located.get("status_message")) == ("ERROR", "permission_denied")
    # the review decision: a device span under the review span its interrupt's traceparent named
    decided = [s for s in _device(trace) if s["name"] == "device.review_decision"]
    assert decided and all(by_id[s["parent_id"]]["name"] == REVIEW_SPAN for s in decided)
    # the boot's spans, made before any interrupt, are under the inspection's root
    [boot] = [s for s in _device(trace) if s["name"] == "device.boot"]
    assert boot["parent_id"] == root.span_id
    # every device span of a step names the thread's checkpoint that step started from (the boot's come
    # before the thread's first checkpoint: they name none)
    stepped = [s for s in device if not s["name"].startswith("device.boot")]
    assert {"device.headless_tool", "device.screen", "device.review_decision"} <= {s["name"] for s in stepped}
    assert not [s["name"] for s in stepped if not s["attributes"].get("sitewalk.checkpoint_id")]
    assert {s["attributes"]["sitewalk.checkpoint_id"] for s in stepped} <= _checkpoints(traced_server, thread_id)
    # nothing local in any span Phoenix stored, of either side, in name, attribute or event
    assert not [s["name"] for s in phoenix.spans() if SENTINEL in json.dumps(s)]



def test_a_start_pressed_before_python_is_a_device_span_under_the_inspections_root(app_for, traced_server, phoenix):
    """Start pressed at first paint while the boot waits for config.json (held by the test until the press, so
    Python cannot have started the app): the device's `device.start_press` reaches Phoenix, under the root of
    the inspection that press began."""
    app = app_for(traced_server)
    page, held = app.page, []
    page.route("**/config.json", lambda route: held.append(route))  # answered after the press, with tracing on
    page.goto(build.app_url(app.site_url, app.server_url), wait_until="commit")
    poll(page, "window.sitewalkFirstPress !== undefined", timeout_s=60)  # first_press.js listens
    inspection_id = f"inspection-early-traced-{uuid.uuid4().hex[:6]}"
    page.locator("#sw-inspection-id").fill(inspection_id)
    page.locator("#sw-start").click()
    assert page.evaluate("window.sitewalkFirstPress.pressedAt !== undefined && document.body.dataset.ready !== '1'")
    for _ in range(240):  # the boot asks for config.json after Python's packages: wait for the ask
        if held:
            break
        page.wait_for_timeout(250)
    [route] = held
    route.fulfill(json={**json.loads(route.fetch().text()), "traces": True})
    app.wait_finished(inspection_id)
    root = inspection_root(_thread_id(app))
    spans = phoenix.wait_for(lambda got: any(s["name"] == "device.start_press" and s["context"]["trace_id"] ==
                                             root.trace_id for s in _device(got)), timeout=90)
    [pressed] = [s for s in _device(spans) if s["name"] == "device.start_press"
                 and s["context"]["trace_id"] == root.trace_id]
    assert pressed.get("parent_id") == root.span_id
    assert pressed["attributes"]["sitewalk.first_run"] is True
