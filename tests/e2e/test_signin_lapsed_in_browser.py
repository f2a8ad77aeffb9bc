"""A sign-in revoked mid-session, in Chromium against the real agent server with sign-in.

The server of each test reads a token file of its own; Ana's token is taken out of it while she works
(the server reads the file again when it changes: no restart). The message she then sends is kept in
the outbox, the sign-in form comes up, and once she signs in with her new token it is sent and
answered once; a review decision she sends then stays on its card and is sent once after signing in.
"""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from agent_servers import serve_agent, server_kind
from playwright.sync_api import expect
from signin_helpers import ANA, BEN, write_token_file

from sitewalk_agent.workorders import WorkOrders

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Rust on the east railing"],
         "risk": "low"}
ANA_NEW = "ana-token-rotated-0123456789"  # Ana's next token, once the first is revoked
MESSAGE = "the risk is critical"
THREAD_SETTING = "sitewalk:current-thread"


def write_tokens(path: Path, tokens: dict[str, tuple[str, str]]) -> None:
    path.write_text(json.dumps({t: {"identity": i, "display_name": n} for t, (i, n) in tokens.items()}))


@pytest.fixture
def revocable(tmp_path, workorders_db):
    """An agent server with sign-in whose token file the test may change, and that file."""
    tokens = write_token_file(tmp_path)  # Ana's and Ben's
    for url in serve_agent(server_kind(), "revocable_server", env={"SITEWALK_TOKENS": str(tokens)}):
        yield url, tokens


def thread_messages(server_url: str, thread_id: str, token: str) -> list[dict]:
    request = urllib.request.Request(f"{server_url}/threads/{thread_id}/state",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["values"]["messages"]


def revoke_ana(tokens: Path) -> None:
    write_tokens(tokens, {ANA_NEW: ("ana", "Ana Ortiz"), BEN.token: ("ben", "Ben Okafor")})
    time.sleep(1.5)  # the server looks at the file at most once a second


def test_a_message_sent_after_the_token_was_revoked_is_kept_and_sent_once_after_signing_in(
        app_for, revocable):
    server_url, tokens = revocable
    app = app_for(server_url)
    page = app.page
    app.expect_console_error(r"status of 401")  # Chromium logs every refused request; the form answers them
    inspection = f"inspection-95-{uuid.uuid4().hex[:6]}"
    app.open()
    page.wait_for_selector("#sw-signin-form")
    app.sign_in(ANA.token, "ana")
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)

    revoke_ana(tokens)
    page.fill("#sw-message", MESSAGE)
    page.click("#sw-send")
    page.wait_for_selector("#sw-signin-form")  # the server answered 401
    assert "no longer accepts your sign-in" in page.locator("#sw-signin-reason").inner_text()
    waiting = page.locator("#sw-outbox-messages")
    waiting.wait_for(state="visible")
    assert "sign in to send" in waiting.inner_text() and MESSAGE in waiting.inner_text()  # kept, typed
    assert page.locator("#sw-message").input_value() == ""  # held by the outbox, not lost
    assert "Error:" not in page.locator("#sw-status").inner_text()  # no generic failure
    app.screenshot("kept-for-sign-in")

    app.sign_in(ANA_NEW, "ana")
    page.wait_for_selector("#sw-transcript p:has-text('Understood: the risk is now critical.')")
    waiting.wait_for(state="hidden")
    app.wait_status(inspection, "done")
    said = page.locator("#sw-transcript p.sw-said").all_inner_texts()
    assert said == [f"Start inspection {inspection}", MESSAGE]
    thread_id = json.loads(app.local_storage(THREAD_SETTING))["thread_id"]
    sent = [m for m in thread_messages(server_url, thread_id, ANA_NEW) if m.get("type") == "human"]
    assert [m["content"] for m in sent].count(MESSAGE) == 1  # answered once
    app.screenshot("sent-after-sign-in")


def test_a_review_decision_sent_after_the_token_was_revoked_stays_on_its_card_and_is_sent_once_after(
        app_for, revocable, workorders_db):
    server_url, tokens = revocable
    app = app_for(server_url)
    app.expect_console_error(r"status of 401")
    page = app.page
    cards = page.locator("#sw-reviews article.sw-review")
    app.open()
    page.wait_for_selector("#sw-signin-form")
    app.sign_in(ANA.token, "ana")
    app.start(f"inspection-96-{uuid.uuid4().hex[:6]}", "script: review")
    expect(cards).to_have_count(3, timeout=60_000)
    thread_id = json.loads(app.local_storage(THREAD_SETTING))["thread_id"]

    revoke_ana(tokens)
    drain = cards.filter(has_text="Corroded drain cover")
    drain.get_by_role("button", name="Approve").click()
    page.locator("#sw-reviews [data-review-action='send']").click()
    page.wait_for_selector("#sw-signin-form")
    refusal = drain.locator(".sw-review-refused[data-code='sign_in_required']")
    refusal.wait_for()
    assert "sign in" in refusal.inner_text()
    assert drain.get_attribute("data-decision") == "approve"  # kept on its card
    assert "Decided: approve" in drain.locator(".sw-review-choice").inner_text()
    assert "Error:" not in page.locator("#sw-status").inner_text()
    app.screenshot("decision-kept-for-sign-in")

    app.sign_in(ANA_NEW, "ana")
    page.wait_for_selector("#sw-status:has-text('waiting for your review (3)')")  # the inspection reopened
    expect(cards).to_have_count(3)
    assert drain.get_attribute("data-decision") == "approve"  # still there, to send
    page.locator("#sw-reviews [data-review-action='send']").click()
    expect(cards).to_have_count(2, timeout=60_000)
    orders = [r for r in WorkOrders(workorders_db).orders() if r["thread_id"] == thread_id]
    assert [r["subject"] for r in orders] == ["Corroded drain cover"]  # decided and run once
