"""Talking to the agent and coming back to an inspection, in Chromium against the real agent server."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import poll

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Rust on the east railing"],
         "risk": "low"}
BADGE = "#sw-screen [data-sw-id='risk']"


def fresh(prefix: str) -> str:
    return f"inspection-{prefix}-{uuid.uuid4().hex[:6]}"


def say(app, text: str) -> None:
    app.page.fill("#sw-message", text)
    app.page.click("#sw-send")


def say_while_running(app, inspection: str, text: str):
    """Start a slow inspection and send `text` while its run is active: it waits in the outbox."""
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.begin(inspection, note="pace_ms=60")  # the card streamed slowly: the run stays active
    app.page.wait_for_selector("#sw-tool-calls li[data-tool='render_ui']")
    say(app, text)
    waiting = app.page.locator("#sw-outbox-messages")
    waiting.wait_for(state="visible")
    return waiting


def risk_of(page) -> str:
    return page.locator(BADGE).get_attribute("aria-label")


def test_a_follow_up_message_changes_the_badge_on_screen(app):
    inspection = fresh("51")
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)
    assert risk_of(page) == "Risk low"
    say(app, "the risk is critical")
    page.wait_for_selector(f"{BADGE}.sw-risk-critical")
    assert page.locator(BADGE).inner_text() == "Risk: critical"
    assert page.locator("#sw-message").input_value() == ""  # taken by the session
    page.wait_for_selector("#sw-transcript p:has-text('Understood: the risk is now critical.')")
    said = page.locator("#sw-transcript p.sw-said").all_inner_texts()
    assert said == [f"Start inspection {inspection}", "the risk is critical"]
    say(app, "add finding: loose bolt on the gangway")
    page.wait_for_selector("#sw-screen [data-sw-id='card'] li:has-text('loose bolt on the gangway')")
    app.screenshot("follow-up")


def test_a_message_sent_while_the_run_is_active_waits_then_goes(app):
    inspection = fresh("52")
    waiting = say_while_running(app, inspection, "the risk is high")
    page = app.page
    assert "waiting until the agent finishes" in waiting.inner_text() and "the risk is high" in waiting.inner_text()
    app.wait_finished(inspection)
    page.wait_for_selector(f"{BADGE}.sw-risk-high")
    assert waiting.is_hidden()


def test_a_reload_after_the_card_restores_transcript_and_screen(app):
    inspection = fresh("53")
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)
    say(app, "the risk is medium")
    page.wait_for_selector(f"{BADGE}.sw-risk-medium")
    page.wait_for_selector("#sw-transcript p:has-text('Understood: the risk is now medium.')")
    before = page.locator("#sw-transcript p").all_inner_texts()
    app.open()  # a reload
    app.wait_status(inspection, "done")
    assert page.locator("#sw-transcript p").all_inner_texts() == before
    assert risk_of(page) == "Risk medium" and page.locator("#sw-inspection-id").input_value() == inspection
    assert page.locator("#sw-tool-calls li[data-tool='render_ui']").get_attribute("data-state") == "succeeded"
    assert page.locator("#sw-timeline li").count() > 0
    say(app, "the risk is low")  # and the conversation goes on where it was
    page.wait_for_selector(f"{BADGE}.sw-risk-low")


def test_a_reload_while_a_confirm_button_waits_restores_it_and_it_still_works(app):
    inspection = fresh("54")
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: confirm")
    page.wait_for_selector("#sw-screen [data-sw-id='confirm']")
    app.open()  # a reload while the agent waits for the press
    app.wait_status(inspection, "waiting for your decision")
    assert risk_of(page) == "Risk low"
    assert page.locator("#sw-transcript p.sw-said").all_inner_texts()[0].startswith(f"Start inspection {inspection}")
    listed = page.locator(f"#sw-inspections li:has-text('{inspection}')")
    assert listed.get_attribute("data-status") == "waiting"
    page.locator("#sw-screen [data-sw-id='confirm']").click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")


def test_the_list_shows_this_devices_inspections_and_opens_the_older_one(app):
    older, newer = fresh("55"), fresh("56")
    app.open()
    page = app.page
    app.seed_draft(older, {**DRAFT, "risk": "high"})
    app.seed_draft(newer, DRAFT)
    app.start(older)
    app.start(newer)
    items = page.locator("#sw-inspections li[data-thread-id]")
    poll(page, "document.querySelectorAll('#sw-inspections li[data-thread-id]').length >= 2")
    names = items.locator(".sw-open-inspection").all_inner_texts()
    assert names.index(newer) < names.index(older)  # newest first
    assert risk_of(page) == "Risk low"
    page.click(f"#sw-inspections button[data-inspection-id='{older}']")
    page.wait_for_selector(f"{BADGE}.sw-risk-high")
    app.wait_status(older, "done")
    said = page.locator("#sw-transcript p.sw-said").all_inner_texts()
    assert said == [f"Start inspection {older}"]  # the newer one's transcript is gone
    assert page.locator("#sw-inspection-id").input_value() == older
    app.screenshot("inspections")


def test_a_message_waiting_over_a_reload_is_kept_on_the_device_and_sent_once_after_the_reopen(app):
    inspection = fresh("55")
    say_while_running(app, inspection, "the risk is high")
    page = app.page
    thread_id = json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]
    kept = f"sitewalk:messages:{thread_id}"
    assert [m["text"] for m in json.loads(app.local_storage(kept))] == ["the risk is high"]
    app.open()  # a reload while the message waits: only the device has it
    page.wait_for_selector(f"{BADGE}.sw-risk-high")
    app.wait_finished(inspection)
    page.wait_for_selector("#sw-transcript p:has-text('Understood: the risk is now high.')")
    assert page.locator("#sw-outbox-messages").is_hidden() and app.local_storage(kept) is None
    messages = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30).json()["values"]["messages"]
    said = [m for m in messages if m["type"] == "human" and m["content"] == "the risk is high"]
    answered = [m for m in messages if m["type"] == "ai" and "the risk is now high" in str(m["content"])]
    assert len(said) == 1 and len(answered) == 1
    assert page.locator("#sw-transcript p.sw-said:has-text('the risk is high')").count() == 1
