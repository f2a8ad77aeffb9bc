"""Accessibility measured with axe-core on every screen an inspector meets, and touch targets measured.

Each screen (the start form, each script's screen, the review cards, the site walk's questions, the device's
request, the timeline and the audit trail open) is checked in light and dark colour schemes, at a phone's
390 px and on a desktop: no serious or critical axe violation may be left. axe-core comes from npm
(tests/js/package.json, installed by `./sw test`); its source is evaluated in the page through the devtools
protocol, which the site's CSP (script-src 'self', Trusted Types) does not govern, so the page under test
keeps its real policy.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
ALSO_BLOCKING = ("aria-allowed-role",)  # minor to axe, but a role the element may not have misleads screen readers
SCHEMES = ("light", "dark")
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
TOUCH_PX = 44  # WCAG 2.5.5's target size, in CSS px
DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bollard bolt"], "risk": "high"}

# Run axe on the document, report the violations (their nodes' selectors and, for contrast, the colours).
RUN_AXE = """async () => {
  const results = await axe.run(document, {resultTypes: ['violations']});
  return results.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 6).map((n) =>
    n.target.join(' ') + (n.any[0] && n.any[0].data && n.any[0].data.fgColor
      ? ` (${n.any[0].data.fgColor} on ${n.any[0].data.bgColor}, ${n.any[0].data.contrastRatio})` : ''))}));
}"""

# Every visible control a finger must hit: its size. Inline links in running text are exempt (WCAG 2.5.8).
SMALL_TARGETS = """(min) => [...document.querySelectorAll(
    'button, input:not([type=hidden]), select, textarea, summary, a[href], [role=button], label:has(> input)')]
  .filter((e) => e.checkVisibility() && !e.closest('[aria-hidden=true], .sw-step-screen'))
  .filter((e) => !(e.type === 'checkbox' || e.type === 'radio') || !e.closest('label'))  // the label is the target
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([, r]) => r.width < min - 0.5 || r.height < min - 0.5)
  .map(([e, r]) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`
    + ` "${(e.innerText || e.value || e.getAttribute('aria-label') || '').trim().slice(0, 30)}"`
    + ` ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def axe_problems(page, screen: str) -> list[str]:
    """The serious and critical axe violations of what `page` shows now, in each colour scheme at each width."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    found = []
    before = page.viewport_size
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        for name, size in VIEWPORTS.items():
            page.set_viewport_size(size)
            for v in page.evaluate(RUN_AXE):
                if v["impact"] in BLOCKING or v["id"] in ALSO_BLOCKING:
                    found.append(f"{screen} [{scheme}, {name}] {v['id']} ({v['impact']}): {'; '.join(v['nodes'])}")
    page.emulate_media(color_scheme="light")
    if before:
        page.set_viewport_size(before)
    return found


def small_targets(page, screen: str) -> list[str]:
    """The controls smaller than 44x44 CSS px at a phone's width."""
    before = page.viewport_size
    page.set_viewport_size(VIEWPORTS["phone"])
    found = [f"{screen}: {t}" for t in page.evaluate(SMALL_TARGETS, TOUCH_PX)]
    if before:
        page.set_viewport_size(before)
    return found


class Screens:
    """What each screen of a test left: axe's blocking violations and the small targets, asserted at the end."""

    def __init__(self, page):
        self.page = page
        self.problems: list[str] = []
        self.checked: list[str] = []

    def check(self, screen: str) -> None:
        self.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        self.problems += axe_problems(self.page, screen) + small_targets(self.page, screen)
        self.checked.append(screen)

    def assert_clean(self) -> None:
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture
def screens(app):
    return Screens(app.page)


def _inspection(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def test_the_start_form_the_card_the_timeline_and_the_audit_trail(app, screens):
    """The risk badge is medium here, high and critical on the other screens, "not set" on the blank draft's."""
    app.open()
    page = app.page
    screens.check("start")
    page.click(".sw-draft summary")
    page.click(".sw-dev summary")
    screens.check("start, draft and developer details open")
    inspection = _inspection("inspection-31")
    app.seed_draft(inspection, {**DRAFT, "risk": "medium"})
    app.start(inspection)
    screens.check("card")
    page.locator("#sw-timeline li .sw-step-open[data-sw-travel='details']").first.click()  # a step, not a fold
    page.locator(".sw-step-view").wait_for()
    screens.check("timeline step open")
    page.locator("#sw-timeline li[data-kind='you'] [data-sw-travel='replay']").last.click()
    page.locator(".sw-restore-preview").wait_for()
    screens.check("timeline restore preview")
    page.click("#sw-audit-load")
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    screens.check("audit trail open")
    screens.assert_clean()


def test_a_blank_draft_and_the_site_walk_questions(app, screens):
    app.open()
    inspection = _inspection("inspection-32")
    app.begin(inspection, note="script: site-walk")
    question = app.page.locator("#sw-questions .sw-question[data-question-id='handrail_secure']")
    question.wait_for()
    screens.check("blank draft and a yes/no question")
    question.locator("[data-question-answer='yes']").click()
    number = app.page.locator("#sw-questions .sw-question[data-question-id='corroded_bolts']")
    number.locator("input").fill("-4")
    number.locator("[data-question-answer='number']").click()
    number.locator(".sw-question-refused").wait_for()
    screens.check("a number question, refused")
    screens.assert_clean()


@pytest.mark.parametrize("script", ["review", "photos"])
def test_the_review_cards(app, screens, script):
    app.open()
    app.begin(_inspection("inspection-34"), note=f"script: {script}")
    page = app.page
    page.locator(".sw-review").first.wait_for()
    screens.check(f"review cards ({script})")
    page.locator(".sw-review .sw-review-editor summary").first.click()
    page.locator(".sw-review [data-review-action='approve']").first.click()
    page.locator(".sw-review .sw-review-json-view summary").last.click()  # the raw JSON, one tap away
    page.locator(".sw-review .sw-review-args").last.wait_for()
    screens.check(f"review cards, one decided, its editor and another's raw JSON open ({script})")
    screens.assert_clean()


@pytest.mark.long_wait  # about 21s, mostly waiting on the screens' runs
def test_the_device_request_a_refused_screen_and_the_confirm_button_screen(app, screens):
    """Three inspections in one page (one boot: the suite is CPU-bound)."""
    app.open()
    inspection = _inspection("inspection-35")
    app.seed_draft(inspection, DRAFT)
    app.begin(inspection, note="script: locate")
    dialog = app.page.get_by_role("dialog", name="Share this device's position?")
    dialog.wait_for(state="visible")
    screens.check("device request")
    dialog.get_by_role("button", name="Allow").click()  # no grant: the device gives none, typing is offered
    manual = app.page.get_by_role("dialog", name="Type the position?")
    manual.wait_for(state="visible")
    app.page.fill("#sw-device-lat", "north")
    app.page.click("#sw-device-allow")
    app.page.locator("#sw-device-lat-error").wait_for()
    screens.check("device request, typing the position, refused")
    manual.get_by_role("button", name="Don't share").click()
    app.wait_finished(inspection)
    other = _inspection("inspection-36")
    app.seed_draft(other, DRAFT)
    app.start(other, note="script: bad-ui")
    app.page.locator("#sw-screen-issues :is(p, li, ul)").first.wait_for()
    screens.check("refused screen")
    confirm = _inspection("inspection-33")
    app.seed_draft(confirm, {**DRAFT, "risk": "critical"})
    app.start(confirm, note="script: confirm")
    app.page.locator("#sw-screen [data-sw-id='confirm']").wait_for()
    screens.check("ConfirmButton screen")
    screens.assert_clean()


def test_the_checks_are_not_blind(page):
    """A negative control: grey text on white and a 24 px button are reported, in both schemes and widths."""
    page.set_content('<!doctype html><html lang="en"><title>Control</title><main><h1>Control</h1>'
                     '<p style="color:#aaa;background:#fff">faint text</p>'
                     '<button style="width:24px;height:24px;min-height:0;min-width:0;padding:0">x</button></main>')
    problems = axe_problems(page, "control")
    assert len(problems) == 4 and all("color-contrast (serious)" in p for p in problems), problems
    assert small_targets(page, "control") == ['control: button. "x" 24x24']
