"""Parallel headless tools answered in one command, and the app driven against the kit's example graph."""

from __future__ import annotations

import json
import re

import httpx
from conftest_helpers import wait_until_ready

import build

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}
PIER = {"latitude": 59.3293, "longitude": 18.0686, "accuracy": 12}


def _runs(server: str, thread_id: str) -> list[dict]:
    response = httpx.get(f"{server}/threads/{thread_id}/runs", timeout=30)
    response.raise_for_status()
    return response.json()


def _thread_id(app) -> str:
    return json.loads(app.local_storage("sitewalk:current-thread"))["thread_id"]


def test_parallel_headless_tools_are_answered_in_one_resume_command(app):
    app.page.context.grant_permissions(["geolocation"])
    app.page.context.set_geolocation(PIER)
    app.open()
    app.seed_idb("sitewalk:draft:inspection-91", json.dumps({**DRAFT, "inspection_id": "inspection-91"}))
    app.begin("inspection-91", "script: parallel")
    dialog = app.page.get_by_role("dialog", name="Share this device's position?")
    dialog.wait_for(state="visible")
    thread_id = _thread_id(app)
    # Both calls of the one message are pending on the server at the same time.
    state = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30).json()
    assert sorted(i["value"]["tool_call"]["name"] for i in state["interrupts"]) == [
        "get_current_location", "read_local_draft"]
    dialog.get_by_role("button", name="Allow").click()
    app.wait_finished("inspection-91")

    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert app.tool_call("get_current_location").get_attribute("data-state") == "succeeded"
    assert "Pier 4, north berth" in app.page.locator("#sw-screen").inner_text()
    assert "The device is at 59.3293, 18.0686" in app.page.locator("#sw-transcript").inner_text()
    app.screenshot("parallel-done")

    assert len(_runs(app.server_url, thread_id)) == 2  # the start, and ONE resume that answered both tools
    [resume] = app.watch.resume_commands(thread_id)
    assert set(resume) == {i["id"] for i in state["interrupts"]}  # keyed by interrupt id, both at once
    calls = {i["id"]: i["value"]["tool_call"]["id"] for i in state["interrupts"]}
    assert all(list(resume[iid]) == [call_id] for iid, call_id in calls.items())
    final = httpx.get(f"{app.server_url}/threads/{thread_id}/state", timeout=30).json()
    assert not final["interrupts"] and final["values"]["ui_spec"]["root"] == "card"


def test_the_app_completes_an_inspection_against_the_example_graph(app):
    app.page.goto(_with_assistant(app, "example"))  # ?server=...&assistant=example
    wait_until_ready(app.page)
    app.seed_idb("sitewalk:draft:inspection-92", json.dumps({**DRAFT, "inspection_id": "inspection-92"}))
    app.start("inspection-92")
    thread_id = _thread_id(app)

    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    card = app.page.locator("#sw-screen [data-sw-id='card']").inner_text()
    assert "Pier 4, north berth" in card and "Loose bollard bolt" in card
    assert "The card for inspection-92 is on screen." in app.page.locator("#sw-transcript").inner_text()
    app.screenshot("example-graph-done")

    runs = _runs(app.server_url, thread_id)
    assert runs
    for run in runs:  # every run of the thread was made on the example graph, not the inspection one
        assistant = httpx.get(f"{app.server_url}/assistants/{run['assistant_id']}", timeout=30).json()
        assert assistant["graph_id"] == "example"


def _with_assistant(app, assistant: str) -> str:
    return build.app_url(app.site_url, app.server_url) + "&assistant=" + assistant


def test_a_confirm_button_of_the_example_graph_is_authorized_and_done_once(app):
    import uuid

    inspection = f"inspection-93-{uuid.uuid4().hex[:8]}"  # work orders outlive the server's threads
    app.page.goto(_with_assistant(app, "example"))
    wait_until_ready(app.page)
    app.seed_idb(f"sitewalk:draft:{inspection}", json.dumps({**DRAFT, "inspection_id": inspection}))
    app.start(inspection, note="script: confirm")
    button = app.page.locator("#sw-screen [data-sw-id='confirm']")
    button.click()
    app.page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    said = app.page.locator("#sw-transcript p", has_text=re.compile(r"^Work order WO-[0-9A-F]{10} created\.$"))
    said.wait_for(timeout=10_000)
    button.click()  # the same press again: a replay, nothing done twice
    app.page.wait_for_selector("#sw-status:has-text('create_work_order: replayed')")
    state = httpx.get(f"{app.server_url}/threads/{_thread_id(app)}/state", timeout=30).json()
    assert len(state["values"]["ui_actions"]) == 1
    assert [i["value"]["type"] for i in state["interrupts"]] == ["ui_action_request"]  # still waiting
