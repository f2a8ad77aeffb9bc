"""The site's Content-Security-Policy in Chromium: Trusted Types enforced with the app working under
them, and a `?server=` the policy does not allow named as such instead of "server unreachable"."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

import build

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Rust on the east railing"],
         "risk": "high"}

# What page script gets when it writes a string into an HTML sink (or makes a policy of its own).
TRY_SINK = """(code) => { try { (0, eval)('0'); } catch (e) { /* eval is refused anyway (no unsafe-eval) */ }
  const attempts = {
    innerHTML: () => { document.body.innerHTML = '<b>x</b>'; },
    insertAdjacentHTML: () => document.body.insertAdjacentHTML('beforeend', '<b>x</b>'),
    scriptSrc: () => { document.createElement('script').src = 'boot.js'; },
    ownPolicy: () => trustedTypes.createPolicy('mine', { createHTML: (s) => s }),
    appPolicyName: () => trustedTypes.createPolicy('sitewalk', { createHTML: (s) => s }),
  };
  const out = {};
  for (const [name, attempt] of Object.entries(attempts)) {
    try { attempt(); out[name] = 'allowed'; } catch (e) { out[name] = e.constructor.name + ': ' + e.message; }
  }
  return out; }"""


@pytest.mark.browser_context_args(service_workers="allow")  # the worker registers under the app's policy
def test_trusted_types_refuse_page_script_html_while_the_app_renders(app):
    page = app.open().page
    csp = page.locator("meta[http-equiv='Content-Security-Policy']").get_attribute("content")
    assert "require-trusted-types-for 'script'" in csp and "trusted-types sitewalk" in csp
    # Page script may write no HTML string, make no policy of its own, nor take the app's policy name.
    refused = (r"^(This document requires 'Trusted(HTML|ScriptURL)' assignment"
               r"|Creating a TrustedTypePolicy named '(mine|sitewalk)' violates)")
    app.expect_console_error(refused)  # Chromium logs each refusal as a CSP violation
    results = page.evaluate(TRY_SINK)
    assert all(result.startswith("TypeError") for result in results.values()), results
    assert page.locator("body b").count() == 0
    # ... while the app, whose HTML goes through its one policy, renders every screen it has.
    app.seed_draft("inspection-77", DRAFT)
    app.start("inspection-77")
    assert "Pier 4, north berth" in page.locator("#sw-screen [data-sw-id='card']").inner_text()
    assert app.tool_call("read_local_draft").get_attribute("data-state") == "succeeded"
    assert page.locator("#sw-timeline li").count() >= 4
    page.click("#sw-audit-load")
    page.locator("#sw-audit-verdict, #sw-audit p").first.wait_for()
    # the service worker was registered through the policy; the only refusals were the five above
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.active !== null)")
    assert len([m for m in app.watch.console_errors if re.search(refused, m)]) == 5, app.watch.console_errors


def test_the_apps_policy_refuses_html_that_is_not_its_template_output(app):
    page = app.open().page
    outcome = page.evaluate("""async () => window.__sitewalkPyodide.runPythonAsync(`
from sitewalk.bridge import dom
from sitewalk.base.trusted import UntrustedHtml
try:
    dom.set_html("sw-status", "<b>x</b>")
    outcome = "written"
except UntrustedHtml as exc:
    outcome = "refused: " + str(exc)
outcome`)""")
    assert outcome.startswith("refused: only the app's template output"), outcome
    assert page.locator("#sw-status b").count() == 0


def test_a_server_outside_connect_src_is_named_as_not_allowed(app_for):
    # The e2e build is for a loopback server (any loopback port is allowed); a LAN server is not.
    app = app_for("http://192.0.2.10:8123")
    page = app.open().page
    page.locator("#boot-error").wait_for(state="visible")
    message = page.locator("#boot-error-message").inner_text()
    assert message == ("This site is not allowed to connect to http://192.0.2.10:8123; "
                       f"it was built for {build.DEFAULT_SERVER_URL}"), message
    detail = page.locator("#boot-error-detail").inner_text()
    assert detail.startswith("ServerNotAllowed: ") and "connect-src" in detail, detail
    assert not [r.url for r in app.watch.requests if urlsplit(r.url).hostname == "192.0.2.10"]  # nothing tried
    app.screenshot("server-not-allowed")
