"""The app on a phone (390x844): long ids and JSON arguments wrap instead of scrolling the page
sideways, the draft expander shows its disclosure marker, developer details are collapsed."""

from __future__ import annotations

import json
import uuid

import pytest
from conftest_helpers import PHONE, poll

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
# For the failure message: elements whose content sticks out of them (text overflows without widening its box).
WIDEST = """() => [...document.querySelectorAll('body *')]
  .filter((n) => n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX === 'visible')
  .slice(-5).map((n) => `${n.tagName}.${n.className} ${n.scrollWidth}px: ${(n.textContent || '').slice(0, 50)}`)"""
MARKER = """(selector) => { const s = document.querySelector(selector), m = getComputedStyle(s, '::before');
  return {content: m.content, width: parseFloat(m.borderLeftWidth) + parseFloat(m.width || 0) || 0,
          display: m.display, transform: m.transform}; }"""


def _long_id() -> str:
    # The longest id the scripted agent takes (inspection- and 53 characters), with no place to break.
    return "inspection-" + (uuid.uuid4().hex * 2)[:53]


def _fits(page) -> None:
    assert page.evaluate(NO_SIDEWAYS_SCROLL), page.evaluate(WIDEST)


def test_a_phone_never_scrolls_sideways_and_keeps_developer_details_folded(app):
    app.page.set_viewport_size(PHONE)
    page = app.open().page
    # The draft expander has a visible marker that turns when it opens.
    closed = page.evaluate(MARKER, ".sw-draft > summary")
    assert closed["content"] not in ("none", "normal") and closed["display"] != "none" and closed["width"] > 0
    page.click(".sw-draft > summary")
    assert page.evaluate(MARKER, ".sw-draft > summary")["transform"] != closed["transform"]
    page.click(".sw-draft > summary")
    # The server URL is there, folded under "Developer details"; opened, they name the tools' digests too.
    dev = page.locator("#sw-start-title ~ details.sw-dev")
    meta = dev.locator(".sw-meta")
    assert not meta.is_visible() and app.server_url.rstrip("/") in meta.text_content()
    dev.locator("summary").click()
    page.wait_for_selector(".sw-dev .sw-meta:has-text('read_local_draft@')")
    dev.locator("summary").click()

    # An inspection whose draft has long unbroken words, then one whose review cards carry JSON arguments.
    first = _long_id()
    app.seed_draft(first, {"site": "Pier-4-north-berth-" * 6, "inspector": "Ana Ruiz",
                           "findings": ["corrosion_" * 12], "risk": "high"})
    app.start(first)
    page.locator("#sw-screen [data-sw-id='card']").wait_for()
    _fits(page)
    second = _long_id()
    app.start(second, "script: review")
    page.locator("#sw-reviews article.sw-review").nth(2).wait_for()
    assert second in page.locator("#sw-reviews .sw-review-fields").first.inner_text()  # the args, in words
    _fits(page)

    # A step opened: what the agent knew is shown, the node and checkpoint ids are folded away.
    page.locator("#sw-timeline li[data-kind='you'] .sw-step-open").first.click()
    view = page.locator(".sw-step-view")
    view.wait_for()
    assert view.locator("details.sw-dev").count() == 1
    assert not view.locator("details.sw-dev dl").is_visible()
    checkpoint = view.get_attribute("data-checkpoint-id")
    assert checkpoint and checkpoint not in view.inner_text()
    view.locator("details.sw-dev > summary").click()
    assert checkpoint in view.inner_text()
    _fits(page)
    app.screenshot("phone-long-ids")


# What waits for the inspector is in view: below the sticky title, above the tab bar (a dialog: on screen).
IN_VIEW = """(selector) => { const n = document.querySelector(selector); if (!n) return false;
  const r = n.getBoundingClientRect();
  if (n.tagName === 'DIALOG') return r.top >= 0 && r.bottom <= innerHeight && r.height > 0;
  const top = document.querySelector('.shell-header').getBoundingClientRect().bottom;
  const bottom = document.querySelector('.sw-tabbar').getBoundingClientRect().top;
  return r.height > 0 && r.top >= top - 1 && r.top + 40 <= bottom; }"""
HAS_FOCUS = "(selector) => document.activeElement === document.querySelector(selector)"
FOCUS_INSIDE = "(selector) => document.querySelector(selector).contains(document.activeElement)"
DRAFT = {"site": "Pier 6, east quay", "inspector": "Ana Ruiz", "findings": ["Cracked kerb"], "risk": "medium"}


def _awaited(page, selector: str, focus: str = HAS_FOCUS) -> None:
    """The element arrived, is in view and has the focus (or holds it: `FOCUS_INSIDE`)."""
    page.locator(selector).wait_for()
    poll(page, f"({IN_VIEW})({json.dumps(selector)}) && ({focus})({json.dumps(selector)})", timeout_s=30)


def _new_inspection(app, note: str = "", seed=None) -> str:
    inspection = f"inspection-{uuid.uuid4().hex[:10]}"
    (seed or app.seed_draft)(inspection, DRAFT)
    app.begin(inspection, note)
    return inspection


@pytest.mark.long_wait  # about 20s, mostly waiting on the walk's questions
def test_what_waits_for_the_inspector_comes_into_view_with_the_focus(app):
    app.page.set_viewport_size(PHONE)
    page = app.open().page

    # A new screen: into view, focused; the start form is folded to a line naming the inspection.
    plain = _new_inspection(app)
    app.wait_finished(plain)
    _awaited(page, "#sw-screen-panel")
    assert not page.locator("#sw-start-form").evaluate("(form) => form.open")
    assert plain in page.locator("#sw-start-summary").inner_text()
    app.screenshot("1-screen-in-view")

    # A question: into view and focused; Tab goes on into its answers.
    walk = _new_inspection(app, "script: site-walk")
    first = ".sw-question[data-question-id='handrail_secure']"
    _awaited(page, first)
    app.screenshot("2-question-in-view")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.questionAnswer") == "yes"
    # The inspector types a message meanwhile: the next question does not take the focus from it.
    page.locator("#sw-message").fill("the rail is wet")
    page.locator(f"{first} [data-question-answer='yes']").dispatch_event("click")  # a click that moves no focus
    second = ".sw-question[data-question-id='corroded_bolts']"
    page.locator(second).wait_for()
    assert page.evaluate("document.activeElement.id") == "sw-message"
    assert page.locator("#sw-message").input_value() == "the rail is wet"
    page.locator("#sw-message").fill("")
    page.locator(f"{second} input").fill("2")
    page.locator(f"{second} [data-question-answer='number']").click()
    app.wait_finished(walk)

    # Review cards: the first one into view and focused; Tab goes into it.
    _new_inspection(app, "script: review")
    card = "#sw-reviews article.sw-review:first-of-type"
    _awaited(page, card)
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUS_INSIDE, card)
    app.screenshot("3-review-in-view")

    # A device request: the dialog is on screen with the focus in it.
    locate = _new_inspection(app, "script: locate", seed=lambda i, d: app.seed_idb(
        f"sitewalk:draft:{i}", json.dumps({**d, "inspection_id": i})))
    _awaited(page, "#sw-device-dialog", focus=FOCUS_INSIDE)
    app.screenshot("4-device-request-in-view")
    page.get_by_role("button", name="Decline").click()
    app.wait_finished(locate)


def test_the_timeline_the_list_and_the_audit_trail_are_one_tap_away(app):
    app.page.set_viewport_size(PHONE)
    page = app.open().page
    inspection = _new_inspection(app)
    app.wait_finished(inspection)
    bar = page.get_by_role("navigation", name="Sections")
    tabs = bar.get_by_role("link")
    assert tabs.all_inner_texts() == ["Start", "Agent", "Timeline", "Inspections", "Audit"]
    for box in (tab.bounding_box() for tab in tabs.all()):
        assert box and box["width"] >= 44 and box["height"] >= 44, box
    bar_box = bar.bounding_box()
    assert bar_box and bar_box["y"] + bar_box["height"] >= PHONE["height"] - 1  # at the bottom of the screen

    bar.get_by_role("link", name="Timeline").click()
    _awaited(page, "#sw-timeline-panel")
    app.screenshot("timeline-one-tap")
    page.focus("#sw-tab-inspections")  # by keyboard as well
    page.keyboard.press("Enter")
    _awaited(page, "#sw-inspections-panel")
    assert inspection in page.locator("#sw-inspections").inner_text()
    bar.get_by_role("link", name="Audit").click()  # one tap: there, and the trail shown
    _awaited(page, "#sw-audit-panel")
    page.locator("#sw-audit > *").first.wait_for()
    app.screenshot("audit-one-tap")
