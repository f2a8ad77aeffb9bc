"""Sign-in in the browser against the real agent server started WITH a token file (`auth_server`).

Two inspectors on two phones (two browser contexts): Ana signs in, starts an inspection and confirms
its action; Ben signs in on his phone, does not see Ana's inspection in his list and cannot open it by
its thread id; Ana's audit trail names her, as the server authenticated her, whatever her draft says.
Without sign-in on the server (`agent_server`, the default) no form shows and no token is sent.
"""

from __future__ import annotations

import json
import uuid

import pytest
from conftest_helpers import PAGE_TIMEOUT_MS, poll, wait_until_ready
from signin_helpers import ANA, BEN

THREAD_SETTING = "sitewalk:current-thread"
DEVICE_SETTING = "sitewalk:device-id"
DRAFT = {"site": "Pier 9, south berth", "inspector": "Someone Else", "findings": ["Cracked fender"], "risk": "high"}


def _requests_to(app, after: int) -> list:
    """The app's requests to its agent server after the first `after` (preflights left out: they carry no headers)."""
    return [r for r in app.watch.requests[after:] if r.url.startswith(app.server_url) and r.method != "OPTIONS"]


@pytest.mark.long_wait  # about 21s, mostly waiting on two devices' runs
def test_two_inspectors_see_and_open_only_their_own_inspections(auth_app, another_device):
    inspection = f"inspection-91-{uuid.uuid4().hex[:8]}"
    ana, page = auth_app, auth_app.page
    ana.open()
    page.wait_for_selector("#sw-signin-form")  # the server answered 401
    assert "asks you to sign in" in page.locator("#sw-signin-reason").inner_text()
    signed_in_at = len(ana.watch.requests)
    ana.sign_in(ANA.token, "ana")
    assert "Ana Ortiz" in page.locator("#sw-signed-in").inner_text()
    ana.screenshot("signed-in")

    ana.seed_draft(inspection, DRAFT)
    ana.start(inspection, note="script: confirm")
    page.locator("#sw-screen [data-sw-id='confirm']").click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    page.locator("#sw-audit-load").click()  # the store API, under Ana's own namespace
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    rows = page.locator("#sw-audit-records li")
    assert "create_work_order" in rows.locator(".sw-audit-tool").all_inner_texts()
    # the reviewer of every record, the confirmed action included, is Ana as the server knows her
    assert set(rows.locator(".sw-audit-reviewer").all_inner_texts()) == {"Ana Ortiz"}
    ana.screenshot("audit-trail")
    sent = _requests_to(ana, signed_in_at)
    assert len(sent) > 10 and all(r.all_headers().get("authorization") == f"Bearer {ANA.token}" for r in sent)
    thread_id = json.loads(ana.local_storage(THREAD_SETTING))["thread_id"]
    assert page.locator(f"#sw-inspections li[data-thread-id='{thread_id}']").count() == 1

    ben = another_device(ana.server_url)
    ben.expect_console_error(r"status of (401|404)")
    ben.open()
    ben.page.wait_for_selector("#sw-signin-form")
    ben.sign_in(BEN.token, "ben")
    # The same phone as far as the app can tell (Ana's device id: the list searches by it), and Ana's thread
    # id as the app opens an inspection by id (its current-thread setting, read on a reload)
    ben.seed(DEVICE_SETTING, ana.local_storage(DEVICE_SETTING))
    ben.seed(THREAD_SETTING, json.dumps({"thread_id": thread_id, "inspection_id": inspection}))
    ben.open()  # still signed in: the token stays on his device
    ben.page.wait_for_selector("#sw-status[data-error='1']:has-text('cannot be opened')")
    assert "not yours" in ben.page.locator("#sw-status").inner_text()
    ben.page.wait_for_selector("#sw-inspections li:has-text('No inspections on this device yet')")
    assert ben.page.locator(f"#sw-inspections li[data-thread-id='{thread_id}']").count() == 0
    assert ben.page.locator("#sw-signed-in[data-identity='ben']").count() == 1
    assert ben.page.locator("#sw-screen [data-sw-id]").count() == 0
    assert ben.page.locator("#sw-transcript").inner_text().strip() == ""
    assert ben.local_storage(THREAD_SETTING) is None  # not tried again
    ben.screenshot("not-yours")

    ana.open()  # Ana's inspection is hers still: reopened on her reload, without signing in again
    page.wait_for_selector(f"#sw-status:has-text('{inspection}: waiting for your decision')")
    assert page.locator("#sw-screen [data-sw-id='confirm']").count() == 1


def test_a_refused_token_shows_a_typed_error_and_loses_nothing_and_sign_out_forgets_it(auth_app):
    app, page = auth_app, auth_app.page
    app.open()
    page.wait_for_selector("#sw-signin-form")
    app.sign_in("not the token")  # cannot be a token: refused before anything is sent
    page.wait_for_selector("#sw-signin-error[data-code='TokenInvalid']")
    app.sign_in("not-the-token-of-anyone-0123")
    page.wait_for_selector("#sw-signin-error[data-code='TokenRefused']:has-text('wrong, expired or revoked')")
    assert page.locator("#sw-token").input_value() == ""

    # what the inspector typed stays while the server refuses: Start is refused, the form stays up
    page.fill("#sw-inspection-id", "inspection-93")
    page.fill("#sw-note", "script: confirm")
    page.click("#sw-start")
    page.wait_for_selector("#sw-status:has-text('sign in to carry on')")
    assert page.locator("#sw-signin-form").is_visible()
    assert page.locator("#sw-inspection-id").input_value() == "inspection-93"
    assert page.locator("#sw-note").input_value() == "script: confirm"
    app.screenshot("refused")

    app.sign_in(ANA.token, "ana")
    kept = [k for k in page.evaluate("Object.keys(localStorage)") if k.startswith("sitewalk:sign-in:")]
    assert len(kept) == 1 and json.loads(app.local_storage(kept[0]))["identity"] == "ana"
    page.click("#sw-start")  # the same fields, now signed in
    app.wait_finished("inspection-93")

    poll(page, "localStorage.getItem('sitewalk:inspections-seen')?.includes('inspection-93')")
    with page.expect_navigation():
        page.click("#sw-sign-out")
    wait_until_ready(page, timeout_ms=PAGE_TIMEOUT_MS)
    page.wait_for_selector("#sw-signin-form")  # reloaded, signed out: the server asks again
    assert app.local_storage(kept[0]) is None and app.local_storage(THREAD_SETTING) is None
    # Nor does the next visit list Ana's inspections before the app is up (boot.js draws what was kept).
    assert app.local_storage("sitewalk:inspections-seen") is None
    assert page.locator("#sw-inspections li[data-thread-id]").count() == 0


def test_without_sign_in_on_the_server_no_form_shows_and_no_token_is_sent(app):
    app.open()
    app.start("inspection-94")
    assert app.page.locator("#sw-signin").is_hidden()
    sent = _requests_to(app, 0)
    assert sent and not any("authorization" in r.all_headers() for r in sent)
