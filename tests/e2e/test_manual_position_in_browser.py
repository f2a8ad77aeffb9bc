"""A position typed by the inspector when the browser gives none (issue 10, item 8: a denied permission
offers manual entry), against the real agent server in Chromium."""

from __future__ import annotations

import json
import uuid

import httpx
from conftest_helpers import PHONE

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bollard bolt"], "risk": "high"}
COUNT_GEOLOCATION = """
window.__geoCalls = 0;
const original = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
navigator.geolocation.getCurrentPosition = (...args) => { window.__geoCalls += 1; return original(...args); };
"""
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def _begin(app, note: str = "script: locate") -> str:
    inspection = f"inspection-77-{uuid.uuid4().hex[:8]}"
    app.page.add_init_script(COUNT_GEOLOCATION)
    app.open()
    app.seed_idb(f"sitewalk:draft:{inspection}", json.dumps({**DRAFT, "inspection_id": inspection}))
    app.begin(inspection, note)
    purpose = app.page.get_by_role("dialog", name="Share this device's position?")
    purpose.wait_for(state="visible")
    return inspection


def _manual(app):
    dialog = app.page.get_by_role("dialog", name="Type the position?")
    dialog.wait_for(state="visible")
    return dialog


def _thread(app) -> str:
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def _located_messages(app, thread_id: str) -> list[dict]:
    state = httpx.get(f"{app.server_url}/threads/{thread_id}/state").json()
    return [m for m in state["values"]["messages"] if m["type"] == "tool" and m["name"] == "get_current_location"]


def test_browser_denies_the_inspector_types_the_position_and_the_agent_shows_it_typed(app):
    inspection = _begin(app)  # no geolocation grant: headless Chromium denies (code 1)
    page = app.page
    page.get_by_role("dialog", name="Share this device's position?").get_by_role("button", name="Allow").click()
    dialog = _manual(app)
    assert "the browser denied access to the position" in dialog.inner_text()
    assert f"Record where inspection {inspection} is carried out." in dialog.inner_text()
    assert app.tool_call("get_current_location").get_attribute("data-state") == "running"  # nothing sent yet
    assert page.evaluate("document.activeElement.id") == "sw-device-lat"
    dialog.get_by_label("Latitude").fill("59.3293, 18.0686")  # pasted as one pair
    app.screenshot("manual-position")
    dialog.get_by_role("button", name="Send").click()
    app.wait_finished(inspection)
    assert dialog.is_hidden() and page.evaluate("window.__geoCalls") == 1

    call = app.tool_call("get_current_location")
    assert call.get_attribute("data-state") == "succeeded"
    transcript = page.locator("#sw-transcript").inner_text()
    assert "The inspector typed the position: 59.3293, 18.0686 (typed by hand, accuracy unknown" in transcript
    card = page.locator("#sw-screen [data-sw-id='card']").inner_text()
    assert "Position typed by the inspector: 59.3293, 18.0686" in card and "Pier 4, north berth" in card

    # the inspector's timeline names the step for what happened
    page.locator("#sw-timeline").get_by_text("Asked for your location: typed by you").wait_for()
    # what reached the agent says it was typed, with no accuracy
    thread_id = _thread(app)
    [message] = _located_messages(app, thread_id)
    result = json.loads(message["content"])["result"]
    assert result["source"] == "manual" and result["accuracy_m"] is None
    assert (result["latitude"], result["longitude"]) == (59.3293, 18.0686)
    # the device's record of what left it, and the server's audit trail, both say so
    record = json.loads(app.idb_get(f"sitewalk:audit:{thread_id}:{message['tool_call_id']}"))
    assert record["source"] == "manual" and record["ok"] is True
    page.locator("#sw-audit-load").click()
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    row = page.locator("#sw-audit-records li", has=page.locator(".sw-audit-tool", has_text="get_current_location"))
    assert "source: manual" in row.locator(".sw-audit-outcome").inner_text()


def test_an_invalid_typed_position_is_refused_on_the_form_then_corrected(app):
    app.page.set_viewport_size(PHONE)
    inspection = _begin(app)
    page = app.page
    thread_id = _thread(app)
    # the inspector knows the device has no fix indoors: types it straight away, the browser is never asked
    page.get_by_role("dialog", name="Share this device's position?").get_by_role(
        "button", name="Type the position").click()
    dialog = _manual(app)
    lat, lon = dialog.get_by_label("Latitude"), dialog.get_by_label("Longitude")
    lat.fill("95.5")
    lon.fill("east")
    dialog.get_by_role("button", name="Send").click()
    lat_error = page.locator("#sw-device-lat-error")
    lat_error.wait_for(state="visible")
    assert "between -90 and 90" in lat_error.inner_text()
    assert "'east' is not a number" in page.locator("#sw-device-lon-error").inner_text()
    assert lat.get_attribute("aria-invalid") == "true" and lon.get_attribute("aria-invalid") == "true"
    assert dialog.is_visible() and lat.input_value() == "95.5"  # kept, to be corrected
    assert page.evaluate(NO_SIDEWAYS_SCROLL)  # a phone: the form and its errors wrap
    app.screenshot("manual-position-refused")
    # nothing was sent: the agent still waits on the call
    state = httpx.get(f"{app.server_url}/threads/{thread_id}/state").json()
    assert state["interrupts"] and not _located_messages(app, thread_id)
    assert app.tool_call("get_current_location").get_attribute("data-state") == "running"

    lat.fill("-33.8688")
    lon.fill("151.2093")
    lon.press("Enter")  # Enter sends, as in a form
    app.wait_finished(inspection)
    assert page.evaluate("window.__geoCalls") == 0
    [message] = _located_messages(app, thread_id)
    result = json.loads(message["content"])["result"]
    assert (result["latitude"], result["longitude"], result["source"]) == (-33.8688, 151.2093, "manual")
    assert "Position typed by the inspector: -33.8688, 151.2093" in page.locator("#sw-screen").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
