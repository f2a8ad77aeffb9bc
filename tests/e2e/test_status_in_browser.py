"""The status line and the list of inspections say where an inspection is, in the same words, in Chromium
against the real agent server: waiting for a review (how many), for an answer (a site-walk question, a device
request), done, cancelled, or failed with its reason; never "run finished" for a run that paused or failed."""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import expect

DRAFT = {"site": "Pier 6, east quay", "inspector": "Ana Ruiz", "findings": ["Cracked kerb"], "risk": "medium"}
FAILURE = "failed: ScriptedModelFailure: the model provider did not answer (script: fail)"  # faults.FAILURE_MESSAGE


def _inspection(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"  # threads outlive a test run


def _listed(app, inspection: str):
    """The inspection's entry in the list of this device's inspections."""
    thread_id = json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]
    return app.page.locator(f"#sw-inspections li[data-thread-id='{thread_id}'] .sw-inspection-status")


def _both_say(app, inspection: str, words: str) -> None:
    """The status line and the list say `words` of the inspection."""
    app.wait_status(inspection, words)
    expect(_listed(app, inspection)).to_have_text(words, timeout=30_000)
    assert "finished" not in app.page.locator("#sw-status").inner_text()


def test_a_run_waiting_on_three_reviews_says_so_then_done_once_decided(app):
    inspection = _inspection("inspection-301")
    app.open()
    app.start(inspection, "script: review")
    page = app.page
    expect(page.locator("#sw-reviews article.sw-review")).to_have_count(3, timeout=60_000)
    _both_say(app, inspection, "waiting for your review (3)")
    assert page.locator("#sw-status").get_attribute("data-error") == "0"
    app.screenshot("waiting-for-review")

    cards = page.locator("#sw-reviews article.sw-review")
    for i in range(3):
        cards.nth(i).get_by_role("button", name="Approve").click()
    page.locator("#sw-reviews [data-review-action='send']").click()
    expect(cards).to_have_count(0, timeout=60_000)
    _both_say(app, inspection, "done")


def test_a_site_walk_question_is_waiting_for_your_answer(app):
    inspection = _inspection("inspection-302")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, "script: site-walk")
    app.page.locator("#sw-questions .sw-question[data-question-id='handrail_secure']").wait_for()
    _both_say(app, inspection, "waiting for your answer")


def test_a_device_request_is_waiting_for_your_answer_and_the_run_then_done(app):
    """No geolocation grant: the app's own prompt asks first; while it is open the inspector is awaited."""
    inspection = _inspection("inspection-303")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.begin(inspection, "script: locate")
    dialog = app.page.get_by_role("dialog", name="Share this device's position?")
    dialog.wait_for(state="visible")
    app.wait_status(inspection, "waiting for your answer")
    app.screenshot("waiting-for-device-request")
    dialog.get_by_role("button", name="Decline").click()
    app.wait_finished(inspection)
    _both_say(app, inspection, "done")
    assert app.tool_call("get_current_location").get_attribute("data-state") == "failed"  # declined


@pytest.mark.long_wait  # about 21s, mostly waiting on the run being cancelled
def test_a_run_the_inspector_cancels_is_cancelled_in_both_places(app):
    """Cancel while the run goes (the server's run is cancelled, action=interrupt): the list said "done"."""
    inspection = _inspection("inspection-305")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.begin(inspection, "script: slow-ui pace_ms=300")
    app.page.wait_for_selector("#sw-screen [data-sw-id='screen']")  # the run is going
    listed = _listed(app, inspection)  # found now: after a cancel the device forgets the open thread
    app.page.click("#sw-cancel")
    app.wait_status(inspection, "cancelled")
    expect(listed).to_have_text("cancelled", timeout=30_000)
    assert listed.evaluate("(e) => e.closest('li').dataset.status") == "cancelled"


def test_a_run_that_fails_says_failed_with_its_reason_as_an_error_in_both_places(app):
    inspection = _inspection("inspection-304")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, "script: fail")  # the model fails once the draft is read
    status = app.page.locator("#sw-status")
    _both_say(app, inspection, FAILURE)
    assert status.get_attribute("data-error") == "1"
    assert "Error:" not in status.inner_text()  # said as the run's failure, not as the page's own error
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    app.screenshot("failed")

    app.open()  # reopened after a reload: the same words, read from the thread
    app.wait_status(inspection, FAILURE)
