"""The app on a phone (390x844): long ids and JSON arguments wrap instead of scrolling the page
sideways, the draft expander shows its disclosure marker, developer details are collapsed."""

from __future__ import annotations

import uuid

from conftest_helpers import PHONE

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
    # The server URL and the tools' digests are there, folded under "Developer details".
    dev = page.locator("#sw-start-title ~ details.sw-dev")
    assert not dev.locator(".sw-meta").is_visible() and "read_local_draft@" in dev.locator(".sw-meta").text_content()

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
    assert second in page.locator("#sw-reviews .sw-review-args").first.inner_text()
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
