"""Generative UI in Chromium: the keyed renderer, progressive screens, inert props, server-authorized actions."""

from __future__ import annotations

import json

from conftest_helpers import poll

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}

RUN_PY = ("async (code) => { const r = await window.__sitewalkPyodide.runPythonAsync(code); "
          "return r === undefined ? null : String(r); }")

SPEC = {"root": "s", "elements": {
    "s": {"type": "Stack", "props": {"gap": "md"}, "children": ["card", "list", "note"]},
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "high"}, "children": []},
    "list": {"type": "Checklist", "props": {"items": [{"id": "a", "label": "Railing"}, {"id": "b", "label": "Bolts"}]},
             "children": []},
    "note": {"type": "Text", "props": {"text": "hello"}, "children": []}}}


def py(page, code: str):
    return page.evaluate(RUN_PY, code)


def setup_renderer(page, spec=SPEC):
    """A KeyedRenderer on a container of its own, with `spec` on screen."""
    page.evaluate("""() => { const d = document.createElement('div'); d.id = 'sw-test-screen';
                              document.getElementById('app').appendChild(d); }""")
    py(page, f"""
import json
from sitewalk.app.renderer import KeyedRenderer
test_renderer = KeyedRenderer("sw-test-screen")
test_renderer.show(json.loads({json.dumps(json.dumps(spec))}))
test_renderer.flush()
""")


def observe(page, selector: str) -> None:
    """Record every DOM mutation under `selector` (in window.__muts) until `mutations` is called."""
    page.evaluate("""(sel) => { window.__muts = []; const target = document.querySelector(sel);
      const name = (n) => n.dataset ? (n.dataset.swId || n.id || n.tagName) : '#text';
      window.__keep = (records) => { for (const r of records) window.__muts.push({type: r.type,
        target: name(r.target), added: [...r.addedNodes].map((n) => n.dataset ? n.dataset.swId : '#text'),
        removed: [...r.removedNodes].map((n) => n.dataset ? n.dataset.swId : '#text')}); };
      window.__obs = new MutationObserver(window.__keep);
      window.__obs.observe(target, {subtree: true, childList: true, attributes: true, characterData: true}); }""",
                  selector)


def mutations(page):
    """All mutations recorded, those not yet delivered to the observer's callback (takeRecords) included."""
    return page.evaluate("""() => { window.__keep(window.__obs.takeRecords()); window.__obs.disconnect();
      return window.__muts; }""")


def test_one_prop_changed_replaces_only_that_element_and_keeps_the_others_state(app):
    app.open()
    page = app.page
    setup_renderer(page)
    # state the renderer must keep: a ticked checkbox, a focused element, expandos on kept nodes
    page.check("#sw-test-screen input[data-sw-item='b']")
    page.evaluate("""() => { for (const n of document.querySelectorAll('#sw-test-screen [data-sw-id]'))
      n.__kept = n.dataset.swId; }""")
    observe(page, "#sw-test-screen")
    new = json.loads(json.dumps(SPEC))
    new["elements"]["risk"]["props"]["level"] = "low"
    py(page, f"test_renderer.show(json.loads({json.dumps(json.dumps(new))})); test_renderer.flush()")
    records = mutations(page)
    assert records == [{"type": "childList", "target": "card", "added": ["risk"], "removed": ["risk"]}]
    kept = page.evaluate("() => [...document.querySelectorAll('#sw-test-screen [data-sw-id]')]"
                         ".filter((n) => n.__kept).map((n) => n.dataset.swId)")
    assert sorted(kept) == ["card", "list", "note", "s"]
    assert page.locator("#sw-test-screen [data-sw-id='risk']").get_attribute("aria-label") == "Risk low"
    assert page.is_checked("#sw-test-screen input[data-sw-item='b']")


def test_a_parent_re_render_keeps_its_children_nodes_and_focus(app):
    app.open()
    page = app.page
    setup_renderer(page)
    page.focus("#sw-test-screen input[data-sw-item='a']")
    page.evaluate("() => { document.querySelector('#sw-test-screen [data-sw-id=\"list\"]').__kept = 1; }")
    new = json.loads(json.dumps(SPEC))
    new["elements"]["s"]["props"]["gap"] = "lg"
    new["elements"]["s"]["children"] = ["list", "card"]  # reordered, note removed
    del new["elements"]["note"]
    py(page, f"test_renderer.show(json.loads({json.dumps(json.dumps(new))})); test_renderer.flush()")
    ids = page.evaluate("() => [...document.querySelector('#sw-test-screen [data-sw-id=\"s\"]').children]"
                        ".map((n) => n.dataset.swId)")
    assert ids == ["list", "card"]
    assert page.evaluate("() => document.querySelector('#sw-test-screen [data-sw-id=\"list\"]').__kept") == 1
    assert page.evaluate("() => document.activeElement.dataset.swItem") == "a"


def test_several_updates_in_one_frame_make_one_dom_pass(app):
    app.open()
    page = app.page
    setup_renderer(page)
    before = int(py(page, "test_renderer.passes"))
    code = []
    for level in ("low", "medium", "critical"):
        new = json.loads(json.dumps(SPEC))
        new["elements"]["risk"]["props"]["level"] = level
        code.append(f"test_renderer.show(json.loads({json.dumps(json.dumps(new))}))")
    py(page, "\n".join(code))
    poll(page, "document.querySelector(\"#sw-test-screen [data-sw-id='risk']\").getAttribute('aria-label')"
               " === 'Risk critical'", timeout_s=60)
    assert int(py(page, "test_renderer.passes")) == before + 1


def test_a_streamed_screen_appears_step_by_step_and_keeps_its_nodes(app):
    app.open()
    page = app.page
    app.seed_draft("inspection-61", DRAFT)
    # record the number of rendered elements after each batch of mutations of the screen
    page.evaluate("""() => { window.__counts = []; const screen = document.getElementById('sw-screen');
      new MutationObserver(() => {
        const root = screen.querySelector("[data-sw-id='screen']");
        if (root && !root.__first) root.__first = window.__counts.length + 1;
        window.__counts.push(screen.querySelectorAll('[data-sw-id]').length);
      }).observe(screen, {subtree: true, childList: true}); }""")
    app.start("inspection-61", note="script: slow-ui")
    counts = page.evaluate("() => window.__counts")
    assert counts[-1] == 9 and counts == sorted(counts), counts
    assert len(set(counts)) >= 4, f"the screen did not build up step by step: {counts}"
    assert page.evaluate("() => document.querySelector(\"#sw-screen [data-sw-id='screen']\").__first") == 1
    assert app.tool_call("render_ui").get_attribute("data-state") == "succeeded"
    assert page.locator("#sw-screen-issues li").count() == 0
    assert "Ana Ruiz" in page.locator("#sw-screen [data-sw-id='inspector']").inner_text()


PAYLOADS = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=2</script>",
            '"><svg onload="window.__pwned=3"></svg>', "{{ 7*7 }} ${7*7} <b>bold</b>",
            "javascript:window.__pwned=4"]


def test_props_full_of_html_and_script_render_as_inert_text(app):
    dialogs: list[str] = []
    app.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    app.open()
    page = app.page
    draft = {"site": PAYLOADS[0], "inspector": PAYLOADS[2], "findings": PAYLOADS, "risk": "critical"}
    app.seed_draft("inspection-66", draft)
    app.start("inspection-66")
    card = page.locator("#sw-screen [data-sw-id='card']")
    text = card.inner_text()
    for payload in PAYLOADS:
        assert payload in text
    assert page.locator("#sw-screen img, #sw-screen script, #sw-screen svg, #sw-screen b").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert dialogs == []


def _thread_values(server_url: str, inspection_id: str) -> dict:
    import httpx

    threads = httpx.post(f"{server_url}/threads/search", json={"metadata": {"inspection_id": inspection_id},
                                                                 "limit": 1}).json()
    return httpx.get(f"{server_url}/threads/{threads[0]['thread_id']}/state").json()


def test_confirm_is_authorized_on_the_server_and_does_nothing_the_second_time(app):
    import uuid

    inspection = f"inspection-71-{uuid.uuid4().hex[:8]}"  # work orders outlive the server's threads
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: confirm")
    button = page.locator("#sw-screen [data-sw-id='confirm']")
    assert button.get_attribute("data-sw-action") == "create_work_order"
    state = _thread_values(app.server_url, inspection)
    assert [i["value"]["type"] for i in state["interrupts"]] == ["ui_action_request"]
    assert not (state["values"].get("ui_actions") or [])  # rendering the button did nothing

    app.screenshot("confirm-screen")
    button.click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    assert button.get_attribute("data-sw-action-state") == "done"
    # the agent's word on it, in the transcript too
    values = _thread_values(app.server_url, inspection)["values"]
    [record] = values["ui_actions"]
    order = record["result"]["work_order"]  # the ticket system's id, filed under the substance's key
    assert record["result"]["created"] is True
    assert record["result"]["key"].startswith(f"work-order:{inspection}:risk-1:")
    said = page.locator("#sw-transcript p", has_text=f"Work order {order} created.")
    said.wait_for(timeout=10_000)
    assert said.count() == 1
    app.screenshot("confirm-outcome")
    # the screen pressed (revision 1); the screen on record gained the order's close button (revision 2)
    assert record["identity"]["tool_call_id"] == values["ui_spec"]["identity"]["tool_call_id"]
    assert record["element_id"] == "confirm" and f"close-{order.lower()}" in values["ui_spec"]["elements"]

    button.click()  # the same button again: the same idempotency key, a replay
    page.wait_for_selector("#sw-status:has-text('create_work_order: replayed')")
    after = _thread_values(app.server_url, inspection)
    assert after["values"]["ui_actions"] == values["ui_actions"]
    assert after["values"]["ui_action_result"]["status"] == "replayed"
    assert [i["value"]["type"] for i in after["interrupts"]] == ["ui_action_request"]  # still waiting


# --- inline screens: JSON-patch lines in the agent's text (json-render's inline mode) ---------


def record_screen_builds(page) -> None:
    """After each batch of mutations of the screen: how many elements it shows, and which were added."""
    page.evaluate("""() => { window.__builds = []; const screen = document.getElementById('sw-screen');
      new MutationObserver((records) => {
        const added = [];
        for (const r of records) for (const n of r.addedNodes) {
          if (n.dataset && n.dataset.swId) added.push(n.dataset.swId);
        }
        window.__builds.push({count: screen.querySelectorAll('[data-sw-id]').length, added,
          risk: (screen.querySelector("[data-sw-id='risk']") || {}).textContent || null});
      }).observe(screen, {subtree: true, childList: true}); }""")


def test_a_screen_written_as_patch_lines_appears_step_by_step_and_its_confirm_is_authorized(app):
    app.open()
    page = app.page
    app.seed_draft("inspection-81", DRAFT)
    record_screen_builds(page)
    app.start("inspection-81", note="script: patch-ui")
    counts = [b["count"] for b in page.evaluate("() => window.__builds")]
    assert counts[-1] == 9 and counts == sorted(counts), counts
    assert len(set(counts)) >= 4, f"the screen did not build up line by line: {counts}"
    assert page.locator("#sw-screen-issues li").count() == 0
    reply = page.locator("#sw-transcript p", has_text="Here is the screen for inspection-81")
    assert "{" not in reply.inner_text()  # the patch lines are the screen, not words
    # the inline screen is the one on record: its button is authorized by the agent
    page.locator("#sw-screen [data-sw-id='confirm']").click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    record = _thread_values(app.server_url, "inspection-81")["values"]["ui_actions"][0]
    assert record["identity"]["tool_call_id"].endswith(":inline_spec")


def test_patch_lines_edit_only_the_element_they_touch(app):
    app.open()
    page = app.page
    app.seed_draft("inspection-82", {**DRAFT, "risk": "low"})
    record_screen_builds(page)
    app.start("inspection-82", note="script: patch-edit pace_ms=60")  # the edit comes frames after the card
    builds = page.evaluate("() => window.__builds")
    assert "card" in builds[0]["added"] and builds[0]["risk"] == "Risk: low"
    later = [name for b in builds[1:] for name in b["added"]]
    assert later and set(later) == {"risk"}, builds  # the card and its other parts kept their nodes
    assert builds[-1]["risk"] == "Risk: high"
    assert page.locator("#sw-screen-issues li").count() == 0


def test_a_bad_patch_line_leaves_the_last_good_screen_with_its_issue(app):
    app.open()
    page = app.page
    app.seed_draft("inspection-83", {**DRAFT, "risk": "low"})
    app.start("inspection-83", note="script: bad-patch")
    badge = page.locator("#sw-screen [data-sw-id='risk']")
    assert badge.inner_text() == "Risk: low"
    # the level itself, not only the label: its class (the colour) and its accessible name
    assert "sw-risk-low" in badge.get_attribute("class").split() and badge.get_attribute("aria-label") == "Risk low"
    issue = page.locator("#sw-screen-issues li[data-code='invalid_patch']")
    assert issue.count() == 1 and issue.get_attribute("data-element") == "badge"
    # next to the issue, the refused screen's words as plain lines: the edit it meant
    fallback = page.locator("#sw-screen-issues .sw-screen-fallback li").all_inner_texts()
    assert fallback[0].startswith("InspectionCard: ") and "RiskBadge: Risk: high · high" in fallback
    values = _thread_values(app.server_url, "inspection-83")["values"]
    assert values["ui_spec"]["elements"]["risk"]["props"]["level"] == "low"  # refused on the server too
    assert [i["code"] for i in values["ui_issues"]] == ["invalid_patch"]
    # the agent was given the issues and their repairs, and answered (the scripted model gives up)
    page.wait_for_selector("#sw-transcript p:has-text('That change to the screen was refused (invalid_patch)')")
    app.screenshot("refused-patch")


def test_a_confirm_pressed_offline_waits_for_the_network_and_the_order_is_made_once(app):
    import uuid

    inspection = f"inspection-72-{uuid.uuid4().hex[:8]}"
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: confirm")
    button = page.locator("#sw-screen [data-sw-id='confirm']")
    app.expect_console_error(r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED")  # offline on purpose
    page.context.set_offline(True)
    try:
        button.click()
        page.wait_for_selector("#sw-status:has-text('waiting for the network')")
        assert button.get_attribute("data-sw-action-state") == "waiting"
    finally:
        page.context.set_offline(False)
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")
    [record] = _thread_values(app.server_url, inspection)["values"]["ui_actions"]
    assert record["result"]["created"] is True and record["result"]["key"].startswith(f"work-order:{inspection}:")


def test_an_element_shown_in_two_places_is_drawn_in_both_and_updated_in_both(app):
    app.open()
    page = app.page
    shared = {"root": "s", "elements": {
        "s": {"type": "Stack", "props": {"gap": "md"}, "children": ["left", "right"]},
        "left": {"type": "Stack", "props": {"gap": "sm"}, "children": ["badge"]},
        "right": {"type": "Stack", "props": {"gap": "sm"}, "children": ["badge"]},
        "badge": {"type": "RiskBadge", "props": {"level": "low"}, "children": []}}}
    setup_renderer(page, shared)  # the first screen: one parse of the whole tree
    badges = "() => [...document.querySelectorAll(\"#sw-test-screen [data-sw-id='badge']\")].map((n) => n.textContent)"
    assert page.evaluate(badges) == ["low", "low"]
    py(page, """
new = json.loads(json.dumps(test_renderer.shown)); new["elements"]["badge"]["props"]["level"] = "high"
test_renderer.show(new); test_renderer.flush()
""")
    assert page.evaluate(badges) == ["high", "high"]


CHECKLIST = {"root": "list", "elements": {"list": {"type": "Checklist", "props": {"title": "On site", "items": [
    {"id": "photos", "label": "Photograph each finding"},
    {"id": "measure", "label": "Measure the corroded area on the east railing, next to the loose bollard"},
    {"id": "tag", "label": "Tag"}]}, "children": []}}}

MEASURE_CHECKLIST = """() => [...document.querySelectorAll('#sw-screen .sw-check-item')].map((li) => {
  const box = (n) => { const r = n.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
                                                                     bottom: r.bottom, height: r.height}; };
  const label = li.querySelector('.sw-check-label');
  return {item: box(li), target: box(li.querySelector('label')), check: box(li.querySelector('input[type=checkbox]')),
          label: box(label), lines: Math.round(label.getBoundingClientRect().height
                                               / parseFloat(getComputedStyle(label).lineHeight)),
          bullet: getComputedStyle(li).listStyleType, wraps: li.querySelector('label').contains(
            li.querySelector('input'))}; })"""


def test_a_checklist_on_a_phone_is_one_row_per_item_with_box_beside_label_no_bullets_and_44px_targets(app):
    app.open()
    page = app.page
    page.set_viewport_size({"width": 390, "height": 844})
    # in the app's own screen panel, whose label and input rules the checklist must override
    py(page, f"""
import json
from sitewalk.app.renderer import KeyedRenderer
checklist_renderer = KeyedRenderer("sw-screen")
checklist_renderer.show(json.loads({json.dumps(json.dumps(CHECKLIST))})); checklist_renderer.flush()
""")
    items = page.evaluate(MEASURE_CHECKLIST)
    assert len(items) == 3
    for item in items:
        assert item["bullet"] == "none"
        assert item["wraps"] and item["target"]["height"] >= 44 and item["item"]["height"] >= 44
        check, label = item["check"], item["label"]
        assert check["right"] <= label["left"]  # beside the label, not above it
        assert label["top"] <= (check["top"] + check["bottom"]) / 2 <= label["bottom"]  # on its line(s)
    assert items[0]["lines"] == 1 and items[1]["lines"] >= 2  # a long label wraps beside its box
    # the whole row is the target: a tap on the label's text ticks the box
    page.click("#sw-screen .sw-check-item:nth-child(3) .sw-check-label")
    assert page.is_checked("#sw-screen input[data-sw-item='tag']")
