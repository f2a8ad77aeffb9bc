"""The device tools end to end: drafts on IndexedDB, geolocation with a purpose prompt, photo metadata."""

from __future__ import annotations

import json

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}


# --- drafts on IndexedDB -------------------------------------------------------------------------


def test_draft_saved_with_the_button_survives_a_reload_and_reaches_the_agent(app):
    app.open()
    app.save_draft_in_form("inspection-61", DRAFT)
    stored = json.loads(app.idb_get("sitewalk:draft:inspection-61"))
    assert stored["site"] == "Pier 4, north berth" and stored["findings"] == DRAFT["findings"]
    assert stored["updated_at"].endswith("Z")
    assert app.local_storage("sitewalk:draft:inspection-61") is None  # not on localStorage any more
    app.open()  # a reload: the app boots again on the same origin
    app.start("inspection-61")
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    card = app.page.locator("#sw-screen [data-sw-id='card']").inner_text()
    assert "Pier 4, north berth" in card and "Loose bollard bolt" in card


def test_legacy_local_storage_draft_moves_into_indexeddb_once(app):
    app.open()
    app.seed_draft("inspection-62", DRAFT)
    app.start("inspection-62")
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert app.local_storage("sitewalk:draft:inspection-62") is None
    assert json.loads(app.idb_get("sitewalk:draft:inspection-62"))["site"] == "Pier 4, north berth"


def test_corrupt_indexeddb_record_is_corrupt_data_naming_the_key(app):
    app.open()
    app.seed_idb("sitewalk:draft:inspection-63", "{\"site\": \"Pier\", trunc")
    app.start("inspection-63")
    call = app.tool_call("read_local_draft")
    assert call.get_attribute("data-state") == "failed"
    assert "corrupt_data" in call.inner_text() and "sitewalk:draft:inspection-63" in call.inner_text()
    assert "corrupt_data" in app.page.locator("#sw-transcript").inner_text()


def test_invalid_draft_in_the_form_is_not_saved(app):
    app.open()
    app.page.fill("#sw-inspection-id", "inspection-64")
    app.page.click(".sw-draft summary")
    app.page.fill("#sw-draft-site", "x" * 201)  # over the contract's 200 characters
    app.page.click("#sw-save-draft")
    app.page.wait_for_selector("#sw-status:has-text('Draft not saved: invalid_args')")
    assert app.idb_get("sitewalk:draft:inspection-64") is None
