"""The walking skeleton end to end: Chromium, the site from dist/, the real agent server."""

from __future__ import annotations

import json

from conftest_helpers import poll, wait_until_ready

import build

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}


def test_draft_goes_headless_tool_then_resume_then_rendered_card_and_the_runs_checkpoints_listed(app):
    app.open()
    app.screenshot("start")
    app.seed_draft("inspection-42", DRAFT)
    app.start("inspection-42")
    app.screenshot("card")
    page = app.page
    call = app.tool_call("read_local_draft")
    assert call.get_attribute("data-state") == "succeeded"
    # its arguments stay under its state, appended fragment by fragment as they streamed
    assert json.loads(call.locator(".sw-tool-args").inner_text()) == {"inspection_id": "inspection-42"}
    # each call named as a person would, its code name beside it (issue 29)
    assert call.locator(".sw-tool-name").inner_text() == "Read the saved draft"
    assert call.locator(".sw-tool-code").inner_text() == "read_local_draft"
    assert app.tool_call("render_ui").locator(".sw-tool-name").inner_text() == "Draw a screen"
    card = page.locator("#sw-screen [data-sw-id='card']")
    assert "Pier 4, north berth" in card.inner_text()
    assert "Ana Ruiz" in card.inner_text() and "Loose bollard bolt" in card.inner_text()
    assert page.locator("#sw-screen [data-sw-id='risk']").get_attribute("aria-label") == "Risk high"
    assert "is on screen" in page.locator("#sw-transcript").inner_text()
    # the draft was seeded where older versions kept it (localStorage): it moved into IndexedDB, once
    assert app.local_storage("sitewalk:draft:inspection-42") is None
    assert json.loads(app.idb_get("sitewalk:draft:inspection-42"))["site"] == "Pier 4, north berth"
    # the same run's checkpoints, listed (one page boot for the whole scenario: the suite is CPU-bound)
    items = app.page.locator("#sw-timeline li")
    assert items.count() >= 6  # input, model, tools (interrupted then resumed), model, tools, model
    nodes = [items.nth(i).get_attribute("data-node") for i in range(items.count())]
    assert nodes[-1] == "input" and "model" in nodes and "tools" in nodes  # newest first; create_agent's nodes
    assert app.page.locator("#sw-timeline li[data-interrupted='1']").count() >= 1
    assert app.page.locator("#sw-timeline li[aria-current='step']").count() == 1
    assert app.page.locator("#sw-timeline time").first.get_attribute("datetime")


def test_corrupt_draft_is_a_typed_error_not_a_console_exception(app):
    app.open()
    app.seed("sitewalk:draft:inspection-13", "{\"site\": \"Pier\", trunc")
    app.start("inspection-13")
    call = app.tool_call("read_local_draft")
    assert call.get_attribute("data-state") == "failed" and "corrupt_data" in call.inner_text()
    assert "corrupt_data" in app.page.locator("#sw-transcript").inner_text()
    assert app.watch.console_errors == []  # not even an expected one


def _thread_state(server_url: str, inspection_id: str) -> dict:
    import httpx

    [thread] = httpx.post(f"{server_url}/threads/search", json={"metadata": {"inspection_id": inspection_id},
                                                                "limit": 2}).json()
    return httpx.get(f"{server_url}/threads/{thread['thread_id']}/state").json()


def test_tool_without_browser_implementation_gets_not_implemented_and_run_goes_on(app):
    import uuid

    inspection = f"inspection-88-{uuid.uuid4().hex[:6]}"  # one thread of this name on the server
    app.open()
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: unknown-tool")
    # what the agent received: the browser's not_implemented envelope, as the tool's message
    messages = _thread_state(app.server_url, inspection)["values"]["messages"]
    [noise] = [m for m in messages if m["type"] == "tool" and m["name"] == "measure_noise_level"]
    envelope = json.loads(noise["content"])
    assert envelope["ok"] is False and envelope["error"]["code"] == "not_implemented"
    assert "read_local_draft" in envelope["error"]["detail"]["implemented"]
    missing = app.tool_call("measure_noise_level")
    assert missing.get_attribute("data-state") == "failed" and "not_implemented" in missing.inner_text()
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert "Pier 4, north berth" in app.page.locator("#sw-screen").inner_text()


def test_spec_with_unknown_component_shows_issue_and_keeps_previous_screen(app):
    app.open()
    app.seed_draft("inspection-51", DRAFT)
    app.start("inspection-51", note="script: bad-ui")
    issues = app.page.locator("#sw-screen-issues li[data-code='unknown_type']")
    assert issues.count() == 1
    app.screenshot("refused-screen")
    assert "Pier 4, north berth" in app.page.locator("#sw-screen [data-sw-id='card']").inner_text()


# The page's checks of its server (GET /info) counted, and each new text of its error message recorded in
# order: the back-off is read from the record, not from the screen at one moment (which a slow poll misses).
WATCH_THE_CHECKS = """
window.__infoCalls = 0;
const fetchOfThePage = window.fetch;
window.fetch = (...args) => (String(args[0]).endsWith("/info") && window.__infoCalls++, fetchOfThePage(...args));
window.__errorSaid = [];
document.addEventListener("DOMContentLoaded", () => {
  const message = document.getElementById("boot-error-message");
  new MutationObserver(() => {
    if (message.textContent && window.__errorSaid.at(-1) !== message.textContent) {
      window.__errorSaid.push(message.textContent);
    }
  }).observe(message, { childList: true, characterData: true, subtree: true });
});
"""


def _down_server_page(app_for):
    """A page booted on a port where no agent server listens yet, counting its checks (GET /info)."""
    port = build.free_port()
    app = app_for(f"http://127.0.0.1:{port}")
    app.expect_console_error(r"Failed to load resource: net::ERR_CONNECTION_REFUSED")  # the server is down
    app.page.add_init_script(WATCH_THE_CHECKS)
    app.open(wait_ready=False)
    app.page.locator("#boot-error").wait_for(state="visible", timeout=120_000)
    return app, port


def _ready_once_the_server_is_up(page, port: int) -> None:
    """The agent server started on the page's port; the page gets ready and its error screen goes."""
    server = build.start_agent_server(port)
    try:
        wait_until_ready(page)
        assert page.locator("#boot-error").is_hidden()
    finally:
        server.stop()


def test_agent_server_down_shows_error_with_url_and_retry_checks_at_once(app_for):
    app, port = _down_server_page(app_for)
    page = app.page
    assert f"http://127.0.0.1:{port}" in page.locator("#boot-error-message").inner_text()
    app.screenshot("server-down")
    poll(page, "window.__errorSaid.length >= 4")
    assert "every 15 s" in page.evaluate("window.__errorSaid")[3]  # the next check by itself is 15 s away
    checks = page.evaluate("window.__infoCalls")
    page.click("#boot-retry")
    # Now, not when the 15 s are out: the 8 s allowed leave a loaded machine room on both sides.
    poll(page, f"window.__infoCalls > {checks}", timeout_s=8)
    _ready_once_the_server_is_up(page, port)


def test_a_server_that_comes_up_after_the_boot_is_found_without_a_tap(app_for):
    """A phone that boots before its server is reachable (no signal yet, a server still starting) checks
    again by itself, sooner at first: once the server is up the page gets ready with no Retry pressed."""
    app, port = _down_server_page(app_for)
    page = app.page
    poll(page, "window.__errorSaid.length >= 3")  # tried twice more, untouched, backing off
    said = page.evaluate("window.__errorSaid")[:3]
    for wait, text in zip((2, 4, 8), said, strict=True):
        assert f"Trying again every {wait} s" in text, said
    assert page.evaluate("window.__infoCalls") >= 3
    _ready_once_the_server_is_up(page, port)
