"""Device tracing in Chromium against the real agent server (issue 27).

Off (config.json without "traces", the default): an inspection runs with no module of `sitewalk.tracing`
imported, its archive never fetched and nothing posted to the device-span route: no span object can exist.
On (config.json says "traces": true; the test serves the built config.json with that key added): the page
fetches the tracing archive, and once the run is over it posts the spans of the boot, the headless call and
the screen to `/sitewalk/device-spans`, which takes each once; a sentinel in the draft's local-only notes
reaches no span. The joined trace in Phoenix is tests of the server's tracing (traceserver's).
"""

from __future__ import annotations

import json
import uuid

SENTINEL = "SENTINEL-notes-3c9e"
ROUTE = "/sitewalk/device-spans"
IMPORTED_JS = ("(names) => JSON.parse(window.__sitewalkPyodide.runPython("
               "'import sys, json; json.dumps(sorted(sys.modules))'))"
               ".filter((m) => names.some((n) => m.startsWith(n)))")
TRACING_MODULES = ["sitewalk.tracing", "sitewalk.bridge.boot_marks", "sitewalk_shared.contracts.device_trace"]


def watch_tracing(page) -> dict[str, list]:
    seen: dict[str, list] = {"posted": [], "answers": [], "archive": []}
    def request(r) -> None:
        if r.url.endswith(ROUTE) and r.method == "POST":
            seen["posted"].append(r.post_data)
        elif r.url.endswith("app-rest.zip"):
            seen["archive"].append(r.url)

    def response(r) -> None:
        if r.url.endswith(ROUTE) and r.request.method == "POST":
            seen["answers"].append((r.status, r.json()))

    page.on("request", request)
    page.on("response", response)
    return seen


def traces_on(page) -> None:
    """Serve the built config.json with "traces": true, as a site built with tracing on has it."""
    def with_traces(route) -> None:
        config = json.loads(route.fetch().text())
        route.fulfill(json={**config, "traces": True})

    page.route("**/config.json", with_traces)


def run_inspection(app) -> None:
    inspection = f"inspection-trace-{uuid.uuid4().hex[:8]}"
    app.open()
    app.save_draft_in_form(inspection, {"site": "Pier 4", "inspector": "Ana Ruiz", "findings": ["Loose bolt"],
                                        "risk": "low", "notes": SENTINEL})
    app.start(inspection)
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"


def test_tracing_off_imports_and_fetches_nothing_of_it_and_sends_no_span(app):
    seen = watch_tracing(app.page)
    run_inspection(app)
    assert app.page.evaluate(IMPORTED_JS, TRACING_MODULES) == []
    assert seen == {"posted": [], "answers": [], "archive": []}


def test_tracing_on_sends_the_boot_the_headless_call_and_the_screen_once_without_local_fields(app):
    traces_on(app.page)
    seen = watch_tracing(app.page)
    run_inspection(app)
    for _ in range(240):  # the spans go once the run is over, in the background
        if seen["answers"]:
            break
        app.page.wait_for_timeout(250)
    assert "sitewalk.tracing" in app.page.evaluate(IMPORTED_JS, TRACING_MODULES)
    assert len(seen["archive"]) == 1
    batches = [json.loads(body) for body in seen["posted"]]
    spans = [span for batch in batches for span in batch["spans"]]
    names = {span["name"] for span in spans}
    assert {"device.boot", "device.boot.python", "device.headless_tool", "device.screen"} <= names, names
    assert all(status == 200 for status, _ in seen["answers"]), seen["answers"]
    assert sum(answer["exported"] for _, answer in seen["answers"]) == len(spans)
    assert len({span["span_id"] for span in spans}) == len(spans)  # each span sent once
    [tool] = [s for s in spans if s["name"] == "device.headless_tool"]
    assert tool["attributes"]["sitewalk.tool_name"] == "read_local_draft"
    assert tool["attributes"]["sitewalk.result_bytes"] > 0
    assert all(s["attributes"]["sitewalk.thread_id"] == batches[0]["thread_id"] for s in spans)
    assert SENTINEL not in "".join(seen["posted"])


def test_a_denied_position_is_an_error_span_with_its_typed_code_under_the_call(app):
    """The browser denies geolocation (no grant in headless Chromium); the inspector allowed in the purpose
    dialog, then declined to type it: the device API span and the call's span are errors, `permission_denied`."""
    from test_device_tools_in_browser import _located

    traces_on(app.page)
    seen = watch_tracing(app.page)
    call, _ = _located(app, f"inspection-trace-{uuid.uuid4().hex[:8]}", "script: locate", "Allow", manual=True)
    assert call.get_attribute("data-state") == "failed"
    for _ in range(240):
        if seen["answers"]:
            break
        app.page.wait_for_timeout(250)
    spans = [span for body in seen["posted"] for span in json.loads(body)["spans"]]
    [tool] = [s for s in spans if s["name"] == "device.headless_tool"
              and s["attributes"]["sitewalk.tool_name"] == "get_current_location"]
    children = {s["name"]: s for s in spans if s["parent_span_id"] == tool["span_id"]}
    assert {"device.purpose_prompt", "device.device_api"} <= set(children), children
    api = children["device.device_api"]
    assert (api["status"], api["error_code"], api["attributes"]["sitewalk.device_api"]) == \
        ("error", "permission_denied", "geolocation")
    [permission] = [s for s in spans if s["parent_span_id"] == api["span_id"]]  # asked as the API is called
    assert permission["name"] == "device.permission"
    assert permission["attributes"]["sitewalk.permission_state"] in ("denied", "prompt")
    assert (tool["status"], tool["error_code"]) == ("error", "permission_denied")
    assert all(status == 200 for status, _ in seen["answers"])
