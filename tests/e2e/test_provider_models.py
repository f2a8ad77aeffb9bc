"""A real chat model's screen in Chromium: the agent server runs `SITEWALK_MODEL=openai:…` / `anthropic:…`
(the real LangChain clients) against the provider stand-in (tests/provider_standin), which streams a
`render_ui` spec as tool-call arguments in each provider's own format (OpenAI's `tool_calls` deltas by index;
Anthropic's `input_json_delta` fragments of a `tool_use` block). The browser reads the draft on the device and
draws the screen step by step as the arguments arrive, as it does for the scripted model's `slow-ui`."""

from __future__ import annotations

import uuid

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz",
         "findings": ["Rust on the east railing", "Loose bollard bolt"], "risk": "high"}


def test_a_screen_streamed_as_a_real_providers_tool_arguments_builds_up_in_the_browser(
        app_for, provider_server, standin):
    provider, url = provider_server
    app = app_for(url)
    app.open()
    page = app.page
    inspection = f"inspection-{uuid.uuid4().hex[:8]}"
    app.seed_draft(inspection, DRAFT)
    page.evaluate("""() => { window.__counts = []; const screen = document.getElementById('sw-screen');
      new MutationObserver(() => window.__counts.push(screen.querySelectorAll('[data-sw-id]').length))
        .observe(screen, {subtree: true, childList: true}); }""")
    app.start(inspection, note="standin: screen")
    counts = page.evaluate("() => window.__counts")
    assert counts and counts[-1] == 9 and counts == sorted(counts), _what_came(app, standin, provider, inspection,
                                                                               counts)
    assert len(set(counts)) >= 4, f"the screen did not build up step by step: {counts}"
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert app.tool_call("render_ui").get_attribute("data-state") == "succeeded"
    assert page.locator("#sw-screen-issues li").count() == 0
    assert "Ana Ruiz" in page.locator("#sw-screen [data-sw-id='inspector']").inner_text()
    transcript = page.locator("#sw-transcript").inner_text()
    assert "Reading the draft." in transcript and "Here is the inspection." in transcript
    assert "tool_use" not in transcript and "input_json" not in transcript  # Anthropic's blocks read as text
    asked = [r for r in standin.of(provider) if inspection in r.conversation.first_user_text]
    assert len(asked) == 3 and all(r.body.get("stream") for r in asked)  # read, screen, closing sentence
    app.screenshot(f"{provider}-screen")


def _what_came(app, standin, provider, inspection, counts):
    """What the page and the stand-in saw, for a screen that did not build up as it should."""
    page = app.page
    calls = page.locator("#sw-tool-calls li").evaluate_all(
        "(items) => items.map((li) => `${li.dataset.tool}: ${li.dataset.state}`)")
    asked = [r for r in standin.of(provider) if inspection in r.conversation.first_user_text]
    return (f"screen element counts {counts}; status {page.locator('#sw-status').inner_text()!r}; tool calls "
            f"{calls}; screen issues {page.locator('#sw-screen-issues li').all_inner_texts()}; transcript "
            f"{page.locator('#sw-transcript').inner_text()[-400:]!r}; the stand-in was asked {len(asked)} times; "
            f"console errors {app.watch.console_errors[-3:]}")

