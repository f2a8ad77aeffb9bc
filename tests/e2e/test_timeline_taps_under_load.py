"""Every press on the timeline is answered on a slow phone while runs stream and end (issue 29, the lost tap).

The CPU is throttled through the devtools protocol (a slow phone) and the inspector keeps talking, so runs
stream and end, and each run's end draws the timeline again, while the inspector presses the timeline's
buttons one after the other: Edit and resend, Replay from here, a step's details, and their Cancel and
Close. Each press must end in what it promised (the edit form, the restore preview, the step's details,
or the preview or details gone; a typed error in the timeline's notice counts as an answer), never in
nothing.
"""

from __future__ import annotations

import time
import uuid

from conftest_helpers import poll

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bollard bolt"], "risk": "high"}
YOU = "#sw-timeline li[data-kind='you']"
ACTIONS = 60  # presses in all
PRESS_MS = 150  # between press and release: a finger's tap, a mouse click held a moment
ANSWER_S = 45.0  # a press with nothing after this long is lost (each answer takes a few seconds at most)
TYPED_ERROR = "/^[a-z][a-z_]+: /.test(document.getElementById('sw-timeline-notice').textContent)"

# press: (what to press, JS true once it is answered)
EDIT = (f"{YOU} [data-sw-travel='edit']", "!!document.getElementById('sw-edit-text')")
REPLAY = (f"{YOU} [data-sw-travel='replay']", "!!document.querySelector('.sw-restore-preview')")
DETAILS = (f"{YOU} [data-sw-travel='details']", "!!document.querySelector('#sw-step-details .sw-step-view')")
CANCEL = (".sw-restore-preview [data-sw-travel='cancel']", "!document.querySelector('.sw-restore-preview')")
CLOSE = ("#sw-step-details [data-sw-travel='close']", "!document.querySelector('#sw-step-details .sw-step-view')")
ROUND = (EDIT, CANCEL, REPLAY, CANCEL, DETAILS, CLOSE)


# What the browser did with each press: where its click went. A press it lost has its click on an ancestor of
# the button (the button moved from under the pointer) or none at all (the button was drawn anew).
SPY = """() => { window.swPresses = [];
  document.addEventListener('pointerdown', (e) => swPresses.push({down: e.target.dataset.swTravel, click: null}), true);
  document.addEventListener('click', (e) => { const press = swPresses[swPresses.length - 1];
    if (press && press.click === null) press.click = e.target.dataset.swTravel || e.target.tagName; }, true); }"""
LOST_BY_THE_BROWSER = "swPresses.filter((p) => p.down && p.click !== p.down).length"


def _answered(page, promised: str) -> bool:
    return bool(page.evaluate(f"({promised}) || {TYPED_ERROR}"))


def _press(page, n: int, selector: str, promised: str) -> None:
    button = page.locator(selector).last
    if selector in (CANCEL[0], CLOSE[0]) and not button.count():
        return  # the press before it ended in a typed error: nothing to cancel or close
    page.evaluate("document.getElementById('sw-timeline-notice').textContent = ''")  # a new error, not an old one
    button.click(delay=PRESS_MS)
    deadline = time.monotonic() + ANSWER_S
    while not _answered(page, promised):
        assert time.monotonic() < deadline, (f"press {n} ({selector}) got no answer in {ANSWER_S:g} s; "
                                             f"the last presses: {page.evaluate('swPresses.slice(-4)')}")
        time.sleep(0.1)


def test_every_timeline_press_is_answered_on_a_throttled_phone_while_runs_end(app):
    inspection = f"inspection-tap-{uuid.uuid4().hex[:8]}"
    app.open()
    app.seed_draft(inspection, DRAFT)
    page = app.page
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
    page.evaluate(SPY)
    app.begin(inspection, note="pace_ms=60")
    page.locator(f"{YOU} [data-sw-travel='edit']").wait_for()
    risks = ("critical", "low", "medium", "high")
    for n in range(ACTIONS):
        if n % 3 == 0:  # another message: its run streams and ends (the timeline drawn again) under the presses
            page.fill("#sw-message", f"the risk is {risks[n // 3 % len(risks)]}")
            page.click("#sw-send")
        selector, promised = ROUND[n % len(ROUND)]
        _press(page, n, selector, promised)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    poll(page, "!document.getElementById('sw-start').disabled")
    lost = page.evaluate(LOST_BY_THE_BROWSER)
    print(f"{lost} of {ACTIONS} presses had no click on their button from the browser; each was answered")
    assert lost > 0  # the test pressed while the page moved or drew the buttons anew, which is what it is for
