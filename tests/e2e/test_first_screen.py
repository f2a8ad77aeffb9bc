"""The first screen is in the page before Python is: on a phone (4x slower CPU, 1.6 Mbit/s, 150 ms), the
inspector types and presses Start while Pyodide boots; when the app takes the page over, what was typed,
the focus and the very elements stay, "starting…" was said, and the press starts exactly one run."""

from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit

import httpx
import pytest
from conftest_helpers import poll, wait_until_ready

import build
from sitewalk_build.bench import PHONE

PHONE_BOOT_TIMEOUT_S = 600.0  # a cold boot on the phone profile takes minutes on a loaded machine
NOT_READY = "document.body.dataset.ready !== '1' && window.__sitewalkBoot.appStarting === undefined"
# The elements of the first paint, marked with a JS property a re-created element would not have.
FIELDS = "['sw-inspection-id', 'sw-note', 'sw-start', 'sw-draft-site', 'sw-draft-notes']"
MARK = f"() => {FIELDS}.forEach((id) => {{ document.getElementById(id).__firstPaint = id; }})"
SAME_NODES = f"() => {FIELDS}.every((id) => document.getElementById(id).__firstPaint === id)"


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, **PHONE.context}


def _throttle(page) -> None:
    """The bench's phone profile, through the devtools protocol (sitewalk_build/bench.py PHONE)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE.cpu_slowdown})
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", PHONE.network)


def _runs_started(app, thread_ids: set[str]) -> list[str]:
    """The page's requests that started a run with input (not a resume) on a new thread."""
    started = []
    for request in app.watch.requests:
        path = urlsplit(request.url).path
        found = re.fullmatch(r"/threads/([^/]+)/runs(/stream)?", path)
        if request.method == "POST" and found and found.group(1) in thread_ids \
                and (request.post_data_json or {}).get("input") is not None:  # a resume sends input null
            started.append(found.group(1))
    return started


@pytest.mark.long_wait  # about 50s, mostly waiting on the phone's throttled network
def test_typing_and_start_before_python_is_ready_on_a_phone(app):
    page = app.page
    _throttle(page)
    inspection_id = f"inspection-early-{uuid.uuid4().hex[:8]}"
    page.goto(build.app_url(app.site_url, app.server_url), wait_until="commit")
    poll(page, "window.sitewalkFirstPress !== undefined", timeout_s=60)  # first_press.js listens
    usable_ms = page.evaluate("window.sitewalkFirstPress.listening")
    assert page.evaluate(NOT_READY), "Python was ready before the test could type: nothing was checked"
    page.evaluate(MARK)

    # Typed at first paint, character by character, as a thumb does.
    page.locator("#sw-inspection-id").fill("")
    page.locator("#sw-inspection-id").press_sequentially(inspection_id)
    page.locator(".sw-draft > summary").click()
    page.locator("#sw-draft-site").press_sequentially("Pier 4")
    page.locator("#sw-note").press_sequentially("gate B")
    page.locator("#sw-start").click()
    page.locator("#sw-start").click()  # pressed twice while waiting: still one inspection
    assert page.locator("#sw-status").inner_text() == "starting…"
    assert page.get_attribute("#sw-start", "aria-busy") == "true"
    # Still typing while Python boots: the focus is in the notes, and stays there.
    page.locator("#sw-draft-notes").press_sequentially("north side")
    assert page.evaluate(NOT_READY), "Python became ready before the press was checked"
    app.screenshot("before-python")

    wait_until_ready(page, timeout_ms=PHONE_BOOT_TIMEOUT_S * 1000)
    app.wait_finished(inspection_id)
    assert page.evaluate(SAME_NODES), "the app re-created the first screen instead of attaching to it"
    assert page.input_value("#sw-inspection-id") == inspection_id
    assert page.input_value("#sw-draft-site") == "Pier 4"
    assert page.input_value("#sw-note") == "gate B"
    assert page.input_value("#sw-draft-notes") == "north side"
    assert page.evaluate("document.activeElement.id") == "sw-draft-notes"
    assert page.get_attribute("#sw-start", "aria-busy") is None  # the app took the press
    assert "read_local_draft@" in page.locator("#sw-dev-meta").text_content()  # the run's details, filled in

    threads = httpx.post(f"{app.server_url}/threads/search", timeout=30,
                         json={"metadata": {"inspection_id": inspection_id}, "limit": 10}).json()
    assert len(threads) == 1, threads
    assert _runs_started(app, {threads[0]["thread_id"]}) == [threads[0]["thread_id"]]
    app.screenshot("after-python")
    print(f"first usable input (Start kept) after {usable_ms:.0f} ms")
    assert usable_ms < 10_000  # the target is 2 s (issue 15); this catches it queuing behind the boot's files
