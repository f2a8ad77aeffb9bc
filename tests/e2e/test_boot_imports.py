"""The boot imports what the first screen needs; every feature behind a press is imported at its first use.

At the phone profile (4x CPU) each module imported before main() returns delays the first screen; the
session machinery, the timeline, the cards, the audit trail and the tool contracts (pydantic) are
imported only once the inspector starts an inspection or opens the trail (docs/architecture.md).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

# Features the first screen does without; each is imported when first used.
AT_FIRST_SESSION = (
    "pydantic",  # the headless tools' contracts (sitewalk.app.device_tools)
    "sitewalk_shared.contracts",
    "sitewalk.headless.registry",
    "sitewalk.session.inspection",
    "sitewalk.session.loop",
    "sitewalk.timeline",
    "sitewalk.screen_feed",
    "sitewalk.app.view",
    "sitewalk.app.timeline.panel",
    "sitewalk.app.timeline.steps",
    "sitewalk.app.timeline.step_edit",
    "sitewalk.app.timeline.decision_edit",
    "sitewalk.app.review_view",
    "sitewalk.app.question_view",
    "sitewalk.app.stuck_view",
)
AT_FIRST_TRAIL = ("sitewalk.audit_trail",)

ROOT = Path(__file__).resolve().parents[2]
SYS_MODULES_JS = "window.__sitewalkPyodide.runPython('import sys, json; json.dumps(sorted(sys.modules))')"


def _imported(page) -> set[str]:
    return set(json.loads(page.evaluate(SYS_MODULES_JS)))


def test_the_first_screen_imports_no_feature_and_each_feature_imports_at_its_first_use(app):
    page = app.open().page
    at_boot = _imported(page)
    assert "sitewalk.app" in at_boot  # the probe sees the app's modules
    loaded_early = sorted(m for m in AT_FIRST_SESSION + AT_FIRST_TRAIL if m in at_boot)
    assert loaded_early == [], f"imported before the first screen needed them: {loaded_early}"

    inspection = f"inspection-lazy-{uuid.uuid4().hex[:8]}"
    app.seed_draft(inspection, {"site": "Pier 4", "inspector": "Ana Ruiz", "findings": ["Loose bolt"],
                                "risk": "low"})
    app.start(inspection)
    after_start = _imported(page)
    assert [m for m in AT_FIRST_SESSION if m not in after_start] == []
    assert "read_local_draft@" in page.locator("#sw-dev-meta").text_content()  # the tools, named once built

    page.locator("#sw-audit-load").click()
    page.wait_for_selector("#sw-audit-verdict")
    assert [m for m in AT_FIRST_TRAIL if m not in _imported(page)] == []


def test_the_site_boots_and_the_developer_details_name_the_tools_when_opened_before_any_inspection(app):
    """The smallest walk: the site boots (no request outside the site and the agent server: `watch`), the
    boot's marks are set, and opening Developer details imports the tools' contracts to name them."""
    page = app.open().page
    assert page.locator("#app").is_visible()
    assert json.loads(page.evaluate("JSON.stringify(Object.keys(window.__sitewalkBoot))"))
    assert "pydantic" not in _imported(page)
    page.locator("#sw-dev > summary").click()
    page.wait_for_selector("#sw-dev-meta:has-text('read_local_draft@')")
    assert "pydantic" in _imported(page)


TRACEBACK_PY = """
import json, traceback
from sitewalk.base.seconds import seconds
try:
    seconds("soon", "stuckSeconds")
except ValueError as exc:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
json.dumps([frame.filename, frame.lineno, frame.name, frame.line])
"""


def test_an_error_in_the_apps_code_names_its_file_and_line(app):
    """The app's wheel ships bytecode only (pyproject.toml, keep_source): the line numbers are in the
    .pyc, so a traceback still points at the source; only the printed source line is gone."""
    page = app.open().page
    filename, lineno, function, line = json.loads(page.evaluate(
        "(code) => window.__sitewalkPyodide.runPython(code)", TRACEBACK_PY))
    source = (ROOT / "py_src" / "sitewalk" / "base" / "seconds.py").read_text().splitlines()
    assert filename.endswith("/site-packages/sitewalk/base/seconds.py") and function == "seconds"
    assert source[lineno - 1].strip().startswith("raise ValueError("), (lineno, source[lineno - 1])
    assert not line  # no source shipped to print
