"""The device tools end to end: drafts on IndexedDB, geolocation with a purpose prompt, photo metadata."""

from __future__ import annotations

import json

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}


# --- drafts on IndexedDB -------------------------------------------------------------------------


def test_draft_refused_in_the_form_then_saved_with_the_button_survives_a_reload_and_reaches_the_agent(app):
    app.open()
    app.page.fill("#sw-inspection-id", "inspection-64")
    app.page.click(".sw-draft summary")
    app.page.fill("#sw-draft-site", "x" * 201)  # over the contract's 200 characters
    app.page.click("#sw-save-draft")
    app.page.wait_for_selector("#sw-status:has-text('Draft not saved: invalid_args')")
    assert app.idb_get("sitewalk:draft:inspection-64") is None
    app.page.click(".sw-draft summary")  # folded again: save_draft_in_form opens it
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


BLANK_SAID = "so I started a blank one for you to fill in"
CARD = "#sw-screen [data-sw-id='card']"


def _draft_keys(app, inspection_id: str) -> list:
    """The IndexedDB keys of this inspection's draft (a second draft would be a second key)."""
    keys = app.page.evaluate(_IDB_KEYS)
    return [k for k in keys if k.startswith("sitewalk:draft:") and k.endswith(inspection_id)]


_IDB_KEYS = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open('sitewalk', 1);
  open.onerror = () => reject(new Error(String(open.error)));
  open.onsuccess = () => {
    const req = open.result.transaction('drafts', 'readonly').objectStore('drafts').getAllKeys();
    req.onsuccess = () => { open.result.close(); resolve(req.result); };
  };
})"""


def _replay_from_the_start(app):
    """Replay the inspection from the inspector's first message (the timeline's restore preview, confirmed)."""
    page = app.page
    yours = page.locator("#sw-timeline li[data-kind='you']")
    older = page.locator("#sw-timeline-older")
    for _ in range(12):  # older than a page: page back (at most a minute of pages)
        if yours.count() or not older.is_visible():
            break
        count = page.locator("#sw-timeline li").count()
        try:
            older.click(timeout=5_000)
        except PlaywrightTimeoutError:
            continue  # the list's end came into view and loaded the page itself, or the run's end drew the
            # timeline anew: the button went with it, look again
        page.locator("#sw-timeline li").nth(count).wait_for()
    yours.last.locator("[data-sw-travel='replay']").click()
    page.wait_for_selector(".sw-restore-preview")
    page.click(".sw-restore-preview [data-sw-travel='confirm']")
    page.wait_for_selector("#sw-branches [data-sw-travel='branch'][data-live='0']")


def test_start_without_a_draft_starts_a_blank_one_that_the_device_keeps(app):
    import uuid

    inspection = f"inspection-66-{uuid.uuid4().hex[:6]}"
    app.open()
    app.start(inspection)  # nothing saved for it on this device
    read = app.tool_call("read_local_draft")
    assert read.get_attribute("data-state") == "failed"  # the lifecycle: it returned no draft
    # ... but an inspector reads the ordinary state of a new device, not an alarm (issue 29)
    assert read.get_attribute("data-answer") == "not_found"
    assert read.locator(".sw-tool-state").inner_text() == "No saved draft on this device"
    assert read.locator(".sw-tool-state").get_attribute("title") == "failed: not_found"
    assert read.locator(".sw-tool-name").inner_text() == "Read the saved draft"
    assert read.locator(".sw-tool-code").inner_text() == "read_local_draft"
    assert "failed" not in read.inner_text() and "not_found" not in read.inner_text()
    colour = read.locator(".sw-tool-state").evaluate("(e) => getComputedStyle(e).color")
    danger = app.page.evaluate("""() => { const p = document.createElement('p');
        p.style.color = 'var(--danger)'; document.body.append(p);
        const c = getComputedStyle(p).color; p.remove(); return c; }""")
    assert colour != danger  # not painted as a failure
    assert app.tool_call("start_blank_draft").locator(".sw-tool-name").inner_text() == "Start a blank draft"
    assert app.tool_call("start_blank_draft").get_attribute("data-state") == "succeeded"
    card = app.page.locator(CARD)
    assert card.locator(".sw-card-site").inner_text().strip() == "Site"  # an empty field to fill
    assert app.page.locator("#sw-screen [data-sw-id='inspector'] .sw-field-value").inner_text() == ""
    assert "fill in the site, the inspector and the findings" in app.page.locator("#sw-screen").inner_text()
    badge = app.page.locator("#sw-screen [data-sw-id='risk']")
    assert badge.inner_text() == "Risk: not set" and badge.get_attribute("aria-label") == "Risk not set"  # nobody said
    transcript = app.page.locator("#sw-transcript").inner_text()
    assert BLANK_SAID in transcript and "not_found" not in transcript
    stored = json.loads(app.idb_get(f"sitewalk:draft:{inspection}"))  # the device holds it now
    assert stored["site"] == "" and stored["findings"] == [] and stored["updated_at"].endswith("Z")
    assert stored["risk"] is None

    app.open()  # a reload (the app reopens the inspection), then a second start: the read finds the blank draft
    app.wait_finished(inspection)
    app.begin(inspection)
    app.page.locator("#sw-transcript", has_text="is still blank: fill it in").wait_for()
    app.page.locator("#sw-transcript", has_text="is on screen").wait_for()
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert app.tool_call("start_blank_draft").count() == 0
    assert _draft_keys(app, inspection) == [f"sitewalk:draft:{inspection}"]
    assert json.loads(app.idb_get(f"sitewalk:draft:{inspection}")) == stored


def test_replay_through_the_blank_draft_keeps_one_draft(app):
    import uuid

    inspection = f"inspection-67-{uuid.uuid4().hex[:6]}"
    app.open()
    app.start(inspection)
    app.page.locator(CARD).wait_for()
    stored = app.idb_get(f"sitewalk:draft:{inspection}")
    _replay_from_the_start(app)  # the agent asks again: the device answers the draft it now holds
    app.page.locator("#sw-transcript", has_text="is still blank: fill it in").wait_for()
    app.page.locator(CARD).wait_for()
    assert _draft_keys(app, inspection) == [f"sitewalk:draft:{inspection}"]
    assert app.idb_get(f"sitewalk:draft:{inspection}") == stored  # not written again


def test_a_corrupt_indexeddb_record_is_corrupt_data_naming_the_key_and_not_replaced_by_a_blank_draft(app):
    import uuid

    inspection = f"inspection-68-{uuid.uuid4().hex[:6]}"
    app.open()
    app.seed_idb(f"sitewalk:draft:{inspection}", "{\"site\": \"Pier\", trunc")
    app.start(inspection)
    call = app.tool_call("read_local_draft")
    assert call.get_attribute("data-state") == "failed"
    assert "corrupt_data" in call.inner_text() and f"sitewalk:draft:{inspection}" in call.inner_text()
    assert call.locator(".sw-tool-state").inner_text() == "failed"  # a real failure still says so
    assert call.get_attribute("data-answer") is None
    assert app.watch.console_errors == []  # a typed error, not an exception in the console
    assert app.tool_call("start_blank_draft").count() == 0
    transcript = app.page.locator("#sw-transcript").inner_text()
    assert "corrupt_data" in transcript and "save a new draft under 'Draft on this device'" in transcript
    assert app.idb_get(f"sitewalk:draft:{inspection}") == "{\"site\": \"Pier\", trunc"  # kept as it was


# Keeps a copy of every run stream the page reads (a clone of the response, read to its end).
KEEP_STREAMS = """
window.__streams = [];
const fetchOriginal = window.fetch;
window.fetch = async (...args) => {
  const response = await fetchOriginal(...args);
  if (response.url.includes('/stream')) window.__streams.push(response.clone().text());
  return response;
};
"""


def _thread_of(server_url: str, inspection_id: str) -> str:
    import httpx

    [thread] = httpx.post(f"{server_url}/threads/search", json={"metadata": {"inspection_id": inspection_id},
                                                                "limit": 2}).json()
    return thread["thread_id"]


def _all_history(server_url: str, thread_id: str) -> list:
    """Every checkpoint of the thread, page by page (the server answers newest first)."""
    import httpx

    pages: list = []
    body: dict = {"limit": 3}
    while True:
        page = httpx.post(f"{server_url}/threads/{thread_id}/history", json=body).json()
        pages.extend(page)
        if len(page) < body["limit"]:
            return pages
        body = {"limit": 3, "before": {"configurable": {"checkpoint_id": page[-1]["checkpoint"]["checkpoint_id"]}}}


def test_notes_stay_on_the_device_and_the_egress_record_lists_what_was_sent(app):
    """The draft's Notes ("stays on this device") are kept in IndexedDB, but reach neither the agent's
    requests, its run streams, the thread's state nor any page of its history; the device's egress record
    names the fields that did leave."""
    import uuid

    import httpx

    from sitewalk_shared.contracts.tools import ReadLocalDraftResult, local_only_fields

    marker = f"private-{uuid.uuid4().hex}"
    inspection = f"inspection-65-{uuid.uuid4().hex[:6]}"
    app.page.add_init_script(KEEP_STREAMS)
    app.open()
    assert "stays on this device" in app.page.locator("label[for='sw-draft-notes']").text_content()
    app.save_draft_in_form(inspection, {**DRAFT, "notes": f"Gate code 4471. {marker}"})
    assert marker in json.loads(app.idb_get(f"sitewalk:draft:{inspection}"))["notes"]  # kept on the device
    app.screenshot("draft-saved")
    app.start(inspection)
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert "Pier 4, north berth" in app.page.locator("#sw-screen [data-sw-id='card']").inner_text()

    to_server = [r for r in app.watch.requests if r.url.startswith(app.server_url)]
    streams = [r for r in to_server if "/stream" in r.url]
    assert streams, "no run stream was seen"
    for request in to_server:  # what the page sent: no request body carries the notes
        assert marker not in (request.post_data or ""), request.url
    # what the agent streamed back, as the page read it (DevTools keeps no body of a streamed response)
    received = app.page.evaluate("() => Promise.all(window.__streams)")
    assert len(received) == len(streams) and all("event: " in body for body in received)
    assert any("read_local_draft" in body for body in received)
    for body in received:
        assert marker not in body

    thread_id = _thread_of(app.server_url, inspection)
    state = httpx.get(f"{app.server_url}/threads/{thread_id}/state").json()
    history = _all_history(app.server_url, thread_id)
    assert len(history) >= 6
    assert marker not in json.dumps(state) and marker not in json.dumps(history)
    # the agent did get the draft, with only the summary of its notes
    [tool_message] = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "read_local_draft"]
    sent = json.loads(tool_message["content"])["result"]
    assert sent["has_notes"] is True and "notes" not in sent

    # the egress record on the device: the fields that left, and not the notes
    record = json.loads(app.idb_get(f"sitewalk:audit:{thread_id}:{tool_message['tool_call_id']}"))
    outbound_fields = sorted(set(ReadLocalDraftResult.model_fields) - set(local_only_fields(ReadLocalDraftResult)))
    assert record["tool"] == "read_local_draft" and record["ok"] is True
    assert record["fields"] == outbound_fields == sorted(sent)
    assert "notes" not in record["fields"] and "has_notes" in record["fields"]


# --- get_current_location ------------------------------------------------------------------------

# Counts calls of the browser API, so a test can tell that declining never reached it.
COUNT_GEOLOCATION = """
window.__geoCalls = 0;
const original = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
navigator.geolocation.getCurrentPosition = (...args) => { window.__geoCalls += 1; return original(...args); };
"""
PIER = {"latitude": 59.3293, "longitude": 18.0686, "accuracy": 12}


def _purpose_dialog(app, inspection_id: str):
    dialog = app.page.get_by_role("dialog", name="Share this device's position?")
    dialog.wait_for(state="visible")
    assert f"Record where inspection {inspection_id} is carried out." in dialog.inner_text()
    assert app.tool_call("get_current_location").get_attribute("data-state") == "running"
    return dialog


def _manual_dialog(app):
    dialog = app.page.get_by_role("dialog", name="Type the position?")
    dialog.wait_for(state="visible")
    return dialog


def _located(app, inspection_id: str, note: str, answer: str, manual: bool = False):
    """Start `note`'s inspection and answer the purpose dialog; with `manual`, the device gave no position,
    so the manual entry is offered and the inspector does not share one either ("Don't share")."""
    app.page.add_init_script(COUNT_GEOLOCATION)
    app.open()
    app.seed_idb(f"sitewalk:draft:{inspection_id}", json.dumps({**DRAFT, "inspection_id": inspection_id}))
    app.begin(inspection_id, note)
    dialog = _purpose_dialog(app, inspection_id)
    dialog.get_by_role("button", name=answer).click()
    if manual:
        _manual_dialog(app).get_by_role("button", name="Don't share").click()
    app.wait_finished(inspection_id)
    assert dialog.is_hidden()
    # whatever the position gave, the run goes on to the draft and its card
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert "Pier 4, north berth" in app.page.locator("#sw-screen").inner_text()
    return app.tool_call("get_current_location"), app.page.evaluate("window.__geoCalls")


def test_location_granted_gives_coordinates_to_the_agent(app):
    app.page.context.grant_permissions(["geolocation"])
    app.page.context.set_geolocation(PIER)
    call, calls = _located(app, "inspection-71", "script: locate", "Allow")
    assert call.get_attribute("data-state") == "succeeded" and calls == 1
    transcript = app.page.locator("#sw-transcript").inner_text()
    assert "The device is at 59.3293, 18.0686 (±12.0 m" in transcript


def test_location_denied_by_the_browser_and_not_typed_is_permission_denied(app):
    # no grant: headless Chromium denies; the manual entry offered is declined too
    call, calls = _located(app, "inspection-72", "script: locate", "Allow", manual=True)
    assert call.get_attribute("data-state") == "failed" and "permission_denied" in call.inner_text()
    assert calls == 1
    assert "could not get the position (permission_denied" in app.page.locator("#sw-transcript").inner_text()


def test_location_declined_in_the_purpose_dialog_never_calls_the_browser(app):
    app.page.context.grant_permissions(["geolocation"])
    app.page.context.set_geolocation(PIER)
    call, calls = _located(app, "inspection-73", "script: locate", "Decline")
    assert call.get_attribute("data-state") == "failed" and "permission_denied" in call.inner_text()
    assert "declined" in call.inner_text()
    assert calls == 0


def test_location_timeout_is_timeout(app):
    app.page.context.grant_permissions(["geolocation"])  # allowed, but no position source answers in time
    call, calls = _located(app, "inspection-74", "script: locate timeout_ms=1", "Allow", manual=True)
    assert call.get_attribute("data-state") == "failed" and "timeout" in call.inner_text()
    assert calls == 1  # the browser's API was asked, and its timeout is what the agent got
    assert "could not get the position (timeout" in app.page.locator("#sw-transcript").inner_text()


# --- attach_photo ----------------------------------------------------------------------------------

PHOTO = b"\xff\xd8\xff\xe0 not really a jpeg, but bytes to hash \xff\xd9"


def _photo_dialog(app, inspection_id: str):
    app.open()
    app.seed_idb(f"sitewalk:draft:{inspection_id}", json.dumps({**DRAFT, "inspection_id": inspection_id}))
    app.begin(inspection_id, "script: photo")
    dialog = app.page.get_by_role("dialog", name="Attach a photo?")
    dialog.wait_for(state="visible")
    assert f"Attach a photo of the site to inspection {inspection_id}." in dialog.inner_text()
    return dialog


def test_photo_attach_sends_metadata_and_sha256_only(app):
    import hashlib

    dialog = _photo_dialog(app, "inspection-81")
    attach = dialog.get_by_role("button", name="Attach")
    assert attach.is_disabled()  # nothing picked yet
    app.page.set_input_files("#sw-device-file", files=[{"name": "rail.jpg", "mimeType": "image/jpeg", "buffer": PHOTO}])
    attach.click()
    app.wait_finished("inspection-81")
    call = app.tool_call("attach_photo")
    assert call.get_attribute("data-state") == "succeeded"
    transcript = app.page.locator("#sw-transcript").inner_text()
    expected = f"Photo rail.jpg attached ({len(PHOTO)} bytes, image/jpeg, sha256 {hashlib.sha256(PHOTO).hexdigest()})"
    assert expected in transcript
    assert "Pier 4, north berth" in app.page.locator("#sw-screen").inner_text()


def test_photo_cancelled_is_permission_denied_and_not_an_image_is_invalid(app):
    dialog = _photo_dialog(app, "inspection-82")
    dialog.get_by_role("button", name="Cancel").click()
    app.wait_finished("inspection-82")
    call = app.tool_call("attach_photo")
    assert call.get_attribute("data-state") == "failed" and "permission_denied" in call.inner_text()
    dialog = _photo_dialog(app, "inspection-83")
    app.page.set_input_files("#sw-device-file",
                             files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hi"}])
    dialog.get_by_role("button", name="Attach").click()
    app.wait_finished("inspection-83")
    call = app.tool_call("attach_photo")
    assert call.get_attribute("data-state") == "failed" and "invalid_args" in call.inner_text()


def test_a_photo_too_big_to_hash_is_refused_without_being_read(app, tmp_path):
    from sitewalk.headless.photo import MAX_PHOTO_BYTES

    dialog = _photo_dialog(app, "inspection-84")
    # count reads of the file's bytes: a file over the cap must not be read into memory
    app.page.evaluate("""() => { window.__reads = 0; const read = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () { window.__reads += 1; return read.call(this); }; }""")
    # Handed over by path (a sparse file: nothing written): Chromium opens it where it lies, as a picked
    # file, instead of the test pushing 25 MB through Playwright's protocol (50 s on a loaded machine).
    big = tmp_path / "pano.jpg"
    with big.open("wb") as file:
        file.truncate(MAX_PHOTO_BYTES + 1)
    app.page.set_input_files("#sw-device-file", files=[big])
    dialog.get_by_role("button", name="Attach").click()
    app.wait_finished("inspection-84")
    call = app.tool_call("attach_photo")
    assert call.get_attribute("data-state") == "failed" and "at most 25 MB" in call.inner_text()
    assert app.page.evaluate("() => window.__reads") == 0


def test_purpose_dialog_takes_focus_and_escape_declines(app):
    app.page.add_init_script(COUNT_GEOLOCATION)
    app.open()
    app.begin("inspection-75", "script: locate")
    dialog = _purpose_dialog(app, "inspection-75")
    assert app.page.evaluate("document.activeElement.id") == "sw-device-decline"  # the safe answer has focus
    assert app.page.evaluate("document.getElementById('sw-device-dialog').matches(':modal')")
    app.page.keyboard.press("Escape")
    app.wait_finished("inspection-75")
    assert dialog.is_hidden()
    assert "permission_denied" in app.tool_call("get_current_location").inner_text()
    assert app.page.evaluate("window.__geoCalls") == 0


# Chromium has no way to make a real device report "no position" (without a source it times out),
# so this one is simulated: the platform's error callback gets code 2, POSITION_UNAVAILABLE.
NO_POSITION = """
navigator.geolocation.getCurrentPosition = (ok, fail) =>
  setTimeout(() => fail({code: 2, message: "Position source unavailable"}), 10);
"""


def test_location_with_no_position_is_unavailable(app):
    app.page.add_init_script(NO_POSITION)
    app.page.context.grant_permissions(["geolocation"])
    call, calls = _located(app, "inspection-76", "script: locate", "Allow", manual=True)
    assert call.get_attribute("data-state") == "failed" and "unavailable" in call.inner_text()
    assert calls == 1
    assert "could not get the position (unavailable" in app.page.locator("#sw-transcript").inner_text()
