"""outcome_unknown in Chromium against the real agent server: approved work orders whose work-order system
answers later than the server's timeout (`orders_latency_ms`, SITEWALK_WORKORDERS_TIMEOUT_MS) are shown as
outcome unknown (never failed, never done); once the orders have landed, the inspector's next message
makes the server look them up by idempotency key: the calls are shown done with the order found, the
database holds one row per order, and the audit trail has the unknown calls and their reconciliation."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from playwright.sync_api import expect

from sitewalk_agent.audit import HEAD_KEY, audit_namespace, verify_chain
from sitewalk_agent.audit.cli import read_trail
from sitewalk_agent.field_actions import work_order_key
from sitewalk_agent.outcomes import DEFAULT_TIMEOUT_MS
from sitewalk_agent.workorders import WorkOrder, WorkOrders

SUBJECTS = ("Loose bolt on the east rail", "Corroded drain cover")  # scripted_model.REVIEW_SUBJECTS
LATENCY_MS = DEFAULT_TIMEOUT_MS + 2500  # the work-order system answers after the server stops waiting
ORDERS = "#sw-tool-calls li[data-tool='create_work_order']"


def _state(app, thread_id: str) -> dict:
    response = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30)
    response.raise_for_status()
    return response.json()


def _rows(db, inspection: str) -> list[WorkOrder]:
    return [r for r in WorkOrders(db).orders() if r["key"].startswith(f"work-order:{inspection}:")]


def _trail(app, thread_id: str) -> list[Mapping[str, object]]:
    """The thread's audit trail as `python -m sitewalk_agent.audit verify` reads it (page by page), checked."""
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps an event loop running in this thread
        items = pool.submit(asyncio.run, read_trail(app.server_url, audit_namespace(thread_id))).result()
    assert verify_chain(items) is None
    return [v for k, v in sorted(items) if k != HEAD_KEY]


@pytest.mark.long_wait  # about 18s, mostly waiting on the order's timeout
def test_a_timed_out_order_is_shown_outcome_unknown_then_reconciled(app, workorders_db):
    inspection = f"inspection-79-{uuid.uuid4().hex[:8]}"
    app.open()
    page = app.page
    app.start(inspection, f"script: review orders_latency_ms={LATENCY_MS}")
    cards = page.locator("#sw-reviews article.sw-review")
    expect(cards).to_have_count(3, timeout=60_000)
    for i in range(3):
        cards.nth(i).get_by_role("button", name="Approve").click()
    page.locator("#sw-reviews [data-review-action='send']").click()
    expect(cards).to_have_count(0, timeout=60_000)

    # Shown as unknown, with why; never as failed or done.
    unknown = page.locator(f"{ORDERS}[data-state='outcome_unknown']")
    expect(unknown).to_have_count(2, timeout=60_000)
    assert "did not answer within" in unknown.first.locator(".sw-tool-detail").inner_text()
    assert page.locator(f"{ORDERS}[data-state='failed'], {ORDERS}[data-state='succeeded']").count() == 0
    app.wait_status(inspection, "done")
    thread_id = json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]
    outcomes = _state(app, thread_id)["values"]["call_outcomes"]
    assert sorted(o["status"] for o in outcomes.values()) == ["outcome_unknown", "outcome_unknown"]
    assert sorted(o["idempotency_key"] for o in outcomes.values()) == sorted(work_order_key(inspection, s)
                                                                              for s in SUBJECTS)
    app.screenshot("outcome-unknown")

    # The requests that went out land late; nothing is retried meanwhile.
    deadline = time.monotonic() + 30
    while len(_rows(workorders_db, inspection)) < 2 and time.monotonic() < deadline:
        time.sleep(0.25)
    rows = _rows(workorders_db, inspection)
    assert len(rows) == 2

    # The next message: before the agent answers, the server looks each order up by its key.
    page.fill("#sw-message", "check the work orders")
    page.click("#sw-send")
    done = page.locator(f"{ORDERS}[data-state='succeeded']")
    expect(done).to_have_count(2, timeout=60_000)
    shown = sorted(done.locator(".sw-tool-detail").all_inner_texts())
    assert shown == sorted(f"reconciled: work order {r['id']}" for r in rows)
    page.wait_for_selector("#sw-transcript p:has-text('Checked the work-order system')")
    app.screenshot("outcome-reconciled")

    settled = _state(app, thread_id)["values"]["call_outcomes"]
    assert sorted(o["work_order"] for o in settled.values()) == sorted(r["id"] for r in rows)
    assert len(_rows(workorders_db, inspection)) == 2  # one row per order, nothing filed twice
    trail = _trail(app, thread_id)
    calls = {r["tool_call_id"]: r["outcome"] for r in trail if r["kind"] == "tool_call"
             and r["tool_name"] == "create_work_order"}
    assert sorted(calls) == sorted(settled) and set(calls.values()) == {"outcome_unknown"}
    assert sorted((r["tool_call_id"], r["detail"]) for r in trail if r["kind"] == "reconciliation") == \
        sorted((call, o["work_order"]) for call, o in settled.items())
