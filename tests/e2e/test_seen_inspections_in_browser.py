"""The inspections as last read, at first paint: the next visit lists them before Python is up (boot.js draws
the record the app kept), their buttons waiting for the app, under a line saying when they were read. When the
agent server cannot be read they stay; once read, the app's own list replaces them. A record that is unreadable
or from another server is not drawn, and loses nothing."""

from __future__ import annotations

import json
import uuid

import pytest
from conftest_helpers import PAGE_TIMEOUT_MS, poll, wait_until_ready

from sitewalk_build.bench import PHONE

SEEN = "sitewalk:inspections-seen"  # sitewalk/ui/seen_inspections.py KEY
SEARCH = "**/threads/search"
ROWS = """() => [...document.querySelectorAll('#sw-inspections li[data-thread-id]')].map((li) => ({
  id: li.querySelector('button').dataset.inspectionId, disabled: li.querySelector('button').disabled,
  status: li.dataset.status, words: li.querySelector('.sw-inspection-status').textContent}))"""
PLACEHOLDER_ROW = "#sw-inspections li.sw-cp-meta"  # "Listed once Sitewalk has reached the agent server."


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, **PHONE.context}


def _reload_without_the_list(app) -> None:
    """Reload while the list cannot be read: the search's connection drops (the rest of the server answers)."""
    app.page.route(SEARCH, lambda route: route.abort())
    app.page.reload()
    wait_until_ready(app.page, timeout_ms=PAGE_TIMEOUT_MS)
    app.page.locator("#sw-status", has_text="Could not list this device's inspections").wait_for()


def test_the_inspections_last_read_are_listed_at_first_paint_until_read_again(app):
    app.expect_console_error(r"Failed to load resource|ERR_FAILED")  # Chromium logs each dropped search
    page = app.page
    inspection_id = f"inspection-seen-{uuid.uuid4().hex[:8]}"
    app.open()
    app.start(inspection_id)
    listed = page.locator(f"#sw-inspections button[data-inspection-id='{inspection_id}']")
    listed.wait_for()
    kept = json.loads(app.local_storage(SEEN))
    assert kept["server"] == app.server_url and kept["rows"][0]["@sw:inspection-id"] == inspection_id

    _reload_without_the_list(app)
    boot = page.evaluate("window.__sitewalkBoot")
    assert boot["seenInspections"] < boot["pyodideReady"], boot  # drawn before Python was up
    rows = page.evaluate(ROWS)
    assert [row["id"] for row in rows] == [inspection_id]
    assert rows[0]["disabled"], "a row drawn before the app must wait for it"
    assert rows[0]["status"] == kept["rows"][0]["@sw:status"]
    assert rows[0]["words"] == kept["rows"][0]["@sw:status-words"]
    assert "@sw:" not in page.inner_html("#sw-inspections")
    caption = page.locator("#sw-inspections-seen")
    read_at = kept["readAt"][:16].replace("T", " ")  # as the rows give their times
    assert caption.is_visible()
    assert caption.inner_text() == f"As last read {read_at}: opened once Sitewalk has read them again."
    page.locator("#sw-tab-inspections").click()
    app.screenshot("as-last-read")

    page.unroute(SEARCH)
    page.reload()
    wait_until_ready(page, timeout_ms=PAGE_TIMEOUT_MS)
    poll(page, f"!document.querySelector(\"#sw-inspections button[data-inspection-id='{inspection_id}']\")"
         ".disabled")  # the app's own list, read again
    assert not caption.is_visible()


def test_a_record_unreadable_or_of_another_server_is_not_drawn_and_the_app_keeps_a_new_one(app):
    app.expect_console_error(r"Failed to load resource|ERR_FAILED")
    page = app.page
    app.open()
    app.settled()  # main() reads the list (and keeps it) once more after data-ready: not over the seeded record
    foreign = {"v": 1, "server": "http://127.0.0.1:9", "readAt": "2026-12-05T19:00:00+00:00",
               "rows": [{"@sw:inspection-id": "another-servers-inspection"}]}
    for record in ("{not json", json.dumps(foreign), json.dumps({**foreign, "server": app.server_url, "v": 2}),
                   json.dumps({**foreign, "server": app.server_url, "rows": [None]})):
        app.seed(SEEN, record)
        _reload_without_the_list(app)
        assert page.locator(PLACEHOLDER_ROW).is_visible(), record
        assert page.evaluate(ROWS) == [], record
        assert not page.locator("#sw-inspections-seen").is_visible()
        assert app.local_storage(SEEN) == record  # nothing read anew yet: the record is as it was
    page.unroute(SEARCH)
    page.reload()
    wait_until_ready(page, timeout_ms=PAGE_TIMEOUT_MS)
    poll(page, f"JSON.parse(localStorage.getItem('{SEEN}') || 'null')?.readAt !== {foreign['readAt']!r}")
    kept = json.loads(app.local_storage(SEEN))
    assert (kept["v"], kept["server"], kept["rows"]) == (1, app.server_url, [])  # a new device: none yet


# localStorage refuses the copy, as a full or switched-off storage does (a DOMException from setItem).
REFUSE_THE_COPY = """(() => { const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (key === 'sitewalk:inspections-seen')
      throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
    return setItem.call(this, key, value); }; })()"""


def test_a_device_that_refuses_the_copy_lists_the_inspections_as_read_and_says_why_in_the_console(app):
    # The typed StorageError names the key; Pyodide's text for the DOMException spans lines.
    app.expect_console_error(r"(?s)not kept for the next visit: localStorage refused 'sitewalk:inspections-seen'"
                             r".*QuotaExceededError")
    page = app.page
    page.add_init_script(REFUSE_THE_COPY)
    inspection_id = f"inspection-unkept-{uuid.uuid4().hex[:8]}"
    app.open()
    app.start(inspection_id)
    page.locator(f"#sw-inspections button[data-inspection-id='{inspection_id}']:not([disabled])").wait_for()
    assert app.local_storage(SEEN) is None
    assert any("not kept for the next visit" in text for text in app.watch.console_errors), app.watch.console_errors
    assert page.locator("#sw-status").inner_text().startswith(f"Inspection {inspection_id}: ")  # the run went on
