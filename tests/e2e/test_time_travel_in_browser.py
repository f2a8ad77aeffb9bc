"""Time travel in Chromium against the real agent server: replay, fork, branches, the restore preview."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import PAGE_TIMEOUT_MS, PHONE, origin, poll, wait_until_ready
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from sitewalk_agent.workorders import WorkOrders

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bollard bolt"], "risk": "high"}
STEP = "#sw-timeline li"
PAGE = 20  # steps in one history page (sitewalk.timeline.PAGE_SIZE)
LOCATE = "get_current_location"


def _ident(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"  # threads and work orders outlive one test


def _your_step(page, saying: str = ""):
    """The inspector's first message in the timeline (or the one `saying` this), paging back to it when it
    is older than a page."""
    yours = page.locator(f"{STEP}[data-kind='you']")
    said = (yours.filter(has_text=saying) if saying else yours).last
    older = page.locator("#sw-timeline-older")
    for _ in range(12):  # at most a minute of pages
        if said.count() or not older.is_visible():
            break
        count = page.locator(STEP).count()
        try:
            older.click(timeout=5_000)
        except PlaywrightTimeoutError:
            continue  # the timeline was drawn anew meanwhile (the run's end) and the button with it: look again
        page.locator(STEP).nth(count).wait_for()
    return said


def test_replay_from_before_the_read_reads_the_corrected_draft(app):
    inspection = _ident("inspection-81")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)
    page = app.page
    card = page.locator("#sw-screen [data-sw-id='card']")
    assert "Pier 4, north berth" in card.inner_text()

    first_read = app.tool_call("read_local_draft").get_attribute("data-call-id")
    app.save_draft_in_form(inspection, {**DRAFT, "site": "Pier 9, corrected"})
    _your_step(page).locator("[data-sw-travel='replay']").click()
    page.wait_for_selector(".sw-restore-preview")
    app.screenshot("replay-preview")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator("#sw-screen [data-sw-id='card']", has_text="Pier 9, corrected").wait_for(timeout=60_000)
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")
    assert page.locator("#sw-branches [data-sw-travel='branch']").count() == 2
    # asked again, answered anew: the live branch's call (the old branch's is no longer on the page)
    read = app.tool_call("read_local_draft")
    assert read.count() == 1 and read.get_attribute("data-call-id") != first_read
    assert read.get_attribute("data-state") == "succeeded"


def test_a_fork_keeps_the_old_branch_and_each_branch_shows_its_own_screen(app):
    first, second = _ident("inspection-82"), _ident("inspection-83")
    app.open()
    app.seed_draft(first, DRAFT)
    app.seed_draft(second, {**DRAFT, "site": "Dock 2, south quay"})
    app.start(first)
    page = app.page

    _your_step(page).locator("[data-sw-travel='edit']").click()
    page.wait_for_selector("#sw-edit-text")
    page.fill("#sw-edit-text", f"Start inspection {second}")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator("#sw-screen [data-sw-id='card']", has_text="Dock 2, south quay").wait_for(timeout=60_000)
    branches = page.locator("#sw-branches [data-sw-travel='branch']")
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")
    assert branches.count() == 2
    live = page.locator("#sw-branches [data-live='1']")
    assert second in live.inner_text() and "(edited)" in live.inner_text()

    page.click("#sw-branches [data-live='0']")  # the old branch: its own steps and screen, read-only
    page.wait_for_selector(".sw-step-view .sw-step-screen")
    assert "Pier 4, north berth" in page.locator(".sw-step-view .sw-step-screen").inner_text()
    assert page.locator(".sw-branch-note").is_visible()
    titles = page.locator(f"{STEP} .sw-step-open").all_inner_texts()
    assert "Read your draft" in titles and any(first in t for t in titles)
    app.screenshot("old-branch")

    page.click("#sw-branches [data-live='1']")
    page.locator(".sw-step-view .sw-step-screen", has_text="Dock 2, south quay").wait_for()
    assert page.locator(".sw-branch-note").count() == 0


def test_after_an_edit_the_transcript_is_the_new_branchs_once_and_a_reload_shows_the_same(app):
    first, second = _ident("inspection-86"), _ident("inspection-87")
    app.open()
    app.seed_draft(first, DRAFT)
    app.seed_draft(second, {**DRAFT, "site": "Dock 2, south quay"})
    app.start(first)
    page = app.page
    page.fill("#sw-message", "the risk is critical")  # a later message on the branch about to stop being live
    page.click("#sw-send")
    page.wait_for_selector("#sw-screen [data-sw-id='risk'].sw-risk-critical")
    page.locator(f"{STEP}[data-kind='you']", has_text="the risk is critical").wait_for()
    transcript = page.locator("#sw-transcript p")
    assert any("Understood: the risk is now critical." in t for t in transcript.all_inner_texts())

    _your_step(page, f"Start inspection {first}").locator("[data-sw-travel='edit']").click()
    page.wait_for_selector("#sw-edit-text")
    page.fill("#sw-edit-text", f"Start inspection {second}")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.locator("#sw-screen [data-sw-id='card']", has_text="Dock 2, south quay").wait_for(timeout=60_000)
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")
    page.wait_for_selector("#sw-screen [data-sw-id='risk'].sw-risk-high")  # the fork point's screen, then the run's
    lines = transcript.all_inner_texts()
    assert page.locator("#sw-transcript p.sw-said").all_inner_texts() == [f"Start inspection {second}"]
    assert not any("critical" in t or first in t for t in lines)  # nothing of the old branch after the fork point
    assert any(second in t for t in lines[1:]) and len(lines) == len(set(lines))  # the new run's words, once
    app.screenshot("new-branch-transcript")

    page.click("#sw-branches [data-live='0']")  # the old branch, read-only in the step view...
    page.wait_for_selector(".sw-step-view .sw-step-screen")
    assert "Pier 4, north berth" in page.locator(".sw-step-view .sw-step-screen").inner_text()
    assert transcript.all_inner_texts() == lines  # ...while the live transcript stays the live branch's
    page.click("#sw-branches [data-live='1']")
    page.locator(".sw-step-view .sw-step-screen", has_text="Dock 2, south quay").wait_for()
    assert transcript.all_inner_texts() == lines

    app.open()  # a reload reopens the inspection from the server's state: the same page
    app.wait_status(first, "done")
    assert transcript.all_inner_texts() == lines
    assert page.locator("#sw-screen [data-sw-id='card']").inner_text().count("Dock 2, south quay") == 1


def test_the_restore_preview_lists_the_work_order_and_says_it_is_not_repeated(app, workorders_db):
    inspection = _ident("inspection-84")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: confirm")
    page = app.page
    page.locator("#sw-screen [data-sw-id='confirm']").click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    page.wait_for_selector(f"{STEP}[data-kind='action']")

    _your_step(page).locator("[data-sw-travel='replay']").click()
    preview = page.locator(".sw-restore-preview")
    preview.wait_for()
    action = preview.locator(".sw-restore-actions li")
    assert action.count() == 1 and action.get_attribute("data-deduplicated") == "1"
    # checked against the ticket system's record (mirrored into the store), with its real id
    [order] = [o for o in WorkOrders(workorders_db).orders() if o["key"].startswith(f"work-order:{inspection}:")]
    assert action.get_attribute("data-checked") == "1" and action.get_attribute("data-work-order") == order["id"]
    assert f"already created: {order['id']} — a replay returns it" in action.inner_text()
    assert preview.locator(".sw-restore-steps li").count() >= 3
    app.screenshot("restore-preview")
    page.click(".sw-restore-preview [data-sw-travel='cancel']")
    page.locator(".sw-restore-preview").wait_for(state="detached")  # nothing started, nothing replaced


def test_scrolling_the_timeline_loads_the_next_page_and_only_that(app, agent_server):
    inspection = _ident("inspection-85")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)
    page = app.page
    thread_id = json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]
    for _ in range(45):  # a long thread: every update is a checkpoint of its own
        httpx.post(f"{agent_server}/threads/{thread_id}/state", json={"values": {"inspection_id": inspection}},
                   timeout=30).raise_for_status()
    page.reload()  # the current inspection is reopened: its timeline from the newest page
    wait_until_ready(page, timeout_ms=PAGE_TIMEOUT_MS)
    page.locator(STEP).nth(PAGE - 1).wait_for()
    asked = len(app.watch.requests)
    assert page.locator(STEP).count() == PAGE
    # the rows drawn are marked on their DOM nodes: a loaded page adds rows under them, it does not redraw them
    page.evaluate(f"[...document.querySelectorAll('{STEP}')].forEach((row, i) => {{ row.swDrawn = i; }})")

    page.locator("#sw-timeline-sentinel").scroll_into_view_if_needed()
    page.locator(STEP).nth(PAGE).wait_for()  # the next page came by scrolling, no button pressed
    kept = page.evaluate(f"[...document.querySelectorAll('{STEP}')].slice(0, {PAGE - 1}).map(row => row.swDrawn)")
    assert kept == list(range(PAGE - 1))  # the same nodes (the oldest drawn row may be named anew: its parent came)
    assert page.locator("#sw-timeline").get_attribute("data-draw") == "append"
    older = _older_pages(app.watch.requests[asked:])
    assert _steps_drawn(page) == PAGE * (1 + len(older)) and 1 <= len(older) < 3  # what was reached
    assert page.locator("#sw-timeline-older").is_visible()  # more left, not fetched: memory stays flat

    while page.locator("#sw-timeline-older").is_visible():  # scrolling on reaches the first message
        count = _steps_drawn(page)
        page.locator("#sw-timeline-sentinel").scroll_into_view_if_needed()
        poll(page, f"{STEPS_DRAWN} > {count} "  # a page came, or the last was empty
                   "|| document.getElementById('sw-timeline-older').hidden")
    assert page.locator(f"{STEP}[data-kind='you']").count() == 1
    pages = 1 + len(_older_pages(app.watch.requests[asked:]))  # one request a page, each page once
    assert (pages - 1) * PAGE < _steps_drawn(page) <= pages * PAGE


# The steps the list holds: a row each, a fold of checks as many as it folds (its steps are drawn when opened).
STEPS_DRAWN = ("[...document.querySelectorAll('#sw-timeline > li')]"
               ".reduce((n, li) => n + Number(li.dataset.steps || 1), 0)")


def _steps_drawn(page) -> int:
    return int(page.evaluate(STEPS_DRAWN))


def test_a_turns_checks_are_one_row_opened_on_demand_and_a_replay_from_one_of_them_runs(app):
    inspection = _ident("inspection-88")
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection)
    page = app.page
    _your_step(page)  # the whole run is loaded
    rows = page.locator("#sw-timeline > li")
    titles = rows.locator(":scope > .sw-step-open").all_inner_texts()
    assert "Checked the agent's work" not in titles  # no row of its own for each check
    folds = page.locator("#sw-timeline > li[data-kind='checks']")
    assert folds.count() >= 3 and page.locator(".sw-fold-steps").count() == 0  # folded until asked
    decided = page.locator("#sw-timeline > li[data-kind='agent']", has_text="Decided to ask for your draft")
    fold = decided.locator("xpath=preceding-sibling::li[1]")  # the checks of that first turn
    assert fold.get_attribute("data-kind") == "checks"
    count = int(fold.get_attribute("data-steps"))
    toggle = fold.locator(".sw-fold-toggle")
    assert toggle.inner_text() == f"{count} checks" and toggle.get_attribute("aria-expanded") == "false"
    app.screenshot("checks-folded")

    toggle.click()  # opened on demand: its steps under it, each with details and Replay from here
    opened = page.locator(".sw-fold-steps > li")
    expect(opened).to_have_count(count)
    toggle = page.locator(f"#sw-timeline > li[data-fold-id='{fold.get_attribute('data-fold-id')}'] .sw-fold-toggle")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert page.evaluate("document.activeElement.classList.contains('sw-fold-toggle')")  # the focus stays on it
    assert opened.locator("[data-sw-travel='replay']").count() == count
    app.screenshot("checks-opened")
    oldest = opened.last
    checkpoint = oldest.get_attribute("data-checkpoint-id")
    oldest.locator("[data-sw-travel='details']").click()
    page.locator(f".sw-step-view[data-checkpoint-id='{checkpoint}']").wait_for()

    asked = len(app.watch.requests)
    oldest.locator("[data-sw-travel='replay']").click()
    page.wait_for_selector(".sw-restore-preview")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']", timeout=60_000)
    app.wait_finished(inspection)
    runs = [json.loads(r.post_data or "{}") for r in app.watch.requests[asked:]
            if r.method == "POST" and r.url.endswith("/runs/stream")]
    assert runs and checkpoint in json.dumps(runs[0])  # the replay ran from that step
    assert "Pier 4, north berth" in page.locator("#sw-screen [data-sw-id='card']").inner_text()
    app.wait_status(inspection, "done")


def _older_pages(requests) -> list[dict]:
    """The bodies of the history requests for older pages (those read `before` a checkpoint)."""
    bodies = [json.loads(r.post_data or "{}") for r in requests if r.method == "POST" and r.url.endswith("/history")]
    return [b for b in bodies if b.get("before")]


def test_a_replay_through_a_position_the_browser_now_denies_asks_to_type_it(app):
    """The position was read; the browser denies it since. Replaying from before the agent asked is not
    refused: the preview says the position will be typed, the manual form comes, and the run goes on typed."""
    inspection = _ident("inspection-83")
    page = app.page
    page.context.grant_permissions(["geolocation"])
    page.context.set_geolocation({"latitude": 48.8566, "longitude": 2.3522, "accuracy": 12})
    app.open()
    app.seed_idb(f"sitewalk:draft:{inspection}", json.dumps({**DRAFT, "inspection_id": inspection}))
    app.begin(inspection, "script: locate")
    page.get_by_role("dialog", name="Share this device's position?").get_by_role("button", name="Allow").click()
    app.wait_finished(inspection)
    first = app.tool_call("get_current_location").get_attribute("data-call-id")
    assert "48.8566" in page.locator("#sw-screen [data-sw-id='card']").inner_text()

    page.context.clear_permissions()  # the inspector blocks the position for the site: denied from now on
    cdp = page.context.new_cdp_session(page)  # Playwright grants but cannot deny: Chromium's own protocol can
    context_id = cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
    cdp.send("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "denied",
                                       "origin": origin(app.site_url), "browserContextId": context_id})
    assert page.evaluate("navigator.permissions.query({name: 'geolocation'}).then((s) => s.state)") == "denied"

    _your_step(page).locator("[data-sw-travel='replay']").click()
    preview = page.locator(".sw-restore-preview")
    preview.wait_for()
    note = preview.locator(".sw-restore-typed")
    assert note.inner_text() == "Your browser blocks the position: you will be asked to type it."
    app.screenshot("replay-preview-typed-position")
    preview.locator("[data-sw-travel='confirm']").click()
    page.get_by_role("dialog", name="Share this device's position?").get_by_role("button", name="Allow").click()
    manual = page.get_by_role("dialog", name="Type the position?")
    manual.wait_for(state="visible")
    assert "the browser denied access to the position" in manual.inner_text()
    manual.get_by_label("Latitude").fill("59.3293")
    manual.get_by_label("Longitude").fill("18.0686")
    manual.get_by_role("button", name="Send").click()

    card = page.locator("#sw-screen [data-sw-id='card']", has_text="Position typed by the inspector: 59.3293, 18.0686")
    card.wait_for(timeout=60_000)
    call = app.tool_call("get_current_location")
    assert call.count() == 1 and call.get_attribute("data-call-id") != first
    poll(page, "document.querySelector(\"#sw-tool-calls li[data-tool='get_current_location']\")"
               ".getAttribute('data-state') === 'succeeded'")
    thread_id = json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]
    state = httpx.get(f"{app.server_url}/threads/{thread_id}/state").json()
    [located] = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "get_current_location"]
    result = json.loads(located["content"])["result"]
    assert result["source"] == "manual" and (result["latitude"], result["longitude"]) == (59.3293, 18.0686)
    # the old branch keeps the device's own read
    history = httpx.post(f"{app.server_url}/threads/{thread_id}/history", json={"limit": 200}).json()
    sources = {json.loads(m["content"])["result"]["source"] for entry in history
               for m in entry["values"].get("messages", []) if m["type"] == "tool" and m["name"] == LOCATE}
    assert sources == {"device", "manual"}


def test_a_replay_pressed_far_down_the_timeline_brings_its_preview_into_view_on_a_phone(app):
    """The preview is drawn above the timeline's steps: pressed on the first step at the bottom of a phone's
    screen, it would otherwise open out of sight and the press look like nothing."""
    app.page.set_viewport_size(PHONE)
    app.open()
    app.start(_ident("inspection-84"), "script: review")  # eight steps: the first is a screen or more down
    page = app.page
    replay = _your_step(page).locator("[data-sw-travel='replay']")
    replay.scroll_into_view_if_needed()
    slot_top = page.locator("#sw-restore").evaluate("(n) => n.getBoundingClientRect().top")
    assert slot_top < 0, "the preview's place must be above the screen for this test to mean anything"
    replay.click()
    preview = page.locator(".sw-restore-preview")
    preview.wait_for()
    top = preview.evaluate("(n) => n.getBoundingClientRect().top")
    title_bottom = page.locator(".shell-header").evaluate("(n) => n.getBoundingClientRect().bottom")
    assert title_bottom <= top < PHONE["height"] / 2, (title_bottom, top)  # its heading clear of the sticky title
    assert preview.evaluate("(n) => n === document.activeElement")  # and focused, for a screen reader
