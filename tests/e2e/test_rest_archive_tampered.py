"""A rest archive (the stdlib or pure-package modules no flow imports, fetched when an import needs one)
whose bytes are not the build's is refused: the import raises the finder's typed error
(`RestArchiveTampered`, an ImportError), nothing of the archive is imported, written or kept, and the
inspection goes on. Served by a host that changed the bytes and kept everything else as built (the
boot's sha256 list, the worker's integrity list), over HTTP and through the service worker.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator

import pytest
from conftest_helpers import SITE_PACKAGES_REST, STDLIB_REST, wait_until_ready

import build

REST_FILES = ("pyodide/" + STDLIB_REST, "wheels/" + SITE_PACKAGES_REST)

# Imports one module of each rest archive; says what each import raised, which modules of a rest archive
# are loaded, and what each finder imported and wrote.
IMPORT_REST_PY = """
import json, os, sys
raised = {}
for name in ("doctest", "micropip"):
    try:
        __import__(name)
        raised[name] = None
    except ImportError as exc:
        raised[name] = [type(exc).__name__, [c.__name__ for c in type(exc).__mro__], str(exc)]
finders = [f for f in sys.meta_path if type(f).__name__ == "RestOfStdlib"]
json.dumps({
    "raised": raised,
    "loaded": sorted(n for n, m in list(sys.modules.items()) if "rest.zip" in str(getattr(m, "__file__", ""))),
    "imported": [name for f in finders for name in f.imported],
    "written": [f.path for f in finders if os.path.exists(f.path)],
})
"""
KEPT_JS = """async () => {
  const kept = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) {
      if (request.url.includes("_rest.zip") || request.url.includes("-rest.zip")) kept.push(request.url);
    }
  }
  return kept;
}"""

FETCH_THROUGH_WORKER_JS = """async (files) => {
  const statuses = [];
  for (const file of files) {
    const response = await fetch(new URL(file, location.href).href);
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}"""


@pytest.fixture(scope="module")
def tampered_site(tmp_path_factory) -> Iterator[str]:
    """dist/ with the bytes of both rest archives changed (and their .br/.gz siblings gone, so the host
    serves the changed bytes as they are); every list of hashes as built."""
    dist = tmp_path_factory.mktemp("tampered-rest") / "dist"
    shutil.copytree(build.ensure_built(), dist)
    for rel in REST_FILES:
        path = dist / rel
        data = bytearray(path.read_bytes())
        middle = len(data) // 2
        data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
        path.write_bytes(bytes(data))
        for sibling in path.parent.glob(path.name + ".*"):
            sibling.unlink()
    server = build.serve_static(dist, 0)
    try:
        yield server.url
    finally:
        server.stop()


def _refused_and_goes_on(app) -> dict:
    """Import from each rest archive (refused), then run an inspection to its end."""
    app.watch.expect_stdlib_rest()
    app.watch.expect_site_packages_rest()
    seen = json.loads(app.page.evaluate("(code) => window.__sitewalkPyodide.runPython(code)", IMPORT_REST_PY))
    for name, raised in seen["raised"].items():
        assert raised is not None, f"{name} was imported from a tampered archive"
        kind, mro, message = raised
        assert kind == "RestArchiveTampered" and "ImportError" in mro, raised
        assert message.startswith(f"{name}: ") and "integrity check failed" in message, message
    assert (seen["loaded"], seen["imported"], seen["written"]) == ([], [], [])
    inspection = f"inspection-rest-{uuid.uuid4().hex[:8]}"
    app.seed_draft(inspection, {"site": "Pier 4", "inspector": "Ana Ruiz", "findings": ["Loose bolt"],
                                "risk": "low"})
    app.start(inspection)
    app.wait_status(inspection, "done")
    return seen


def test_a_tampered_rest_archive_over_http_is_refused_and_the_inspection_goes_on(app_on_site, tampered_site):
    app = app_on_site(tampered_site).open()
    _refused_and_goes_on(app)
    assert len(app.watch.stdlib_rest_requests()) >= 1 and len(app.watch.site_packages_rest_requests()) >= 1


@pytest.mark.browser_context_args(service_workers="allow")
def test_a_tampered_rest_archive_through_the_service_worker_is_refused_and_never_kept(app_on_site, tampered_site):
    app = app_on_site(tampered_site).open_under_service_worker()
    watch = app.watch
    _refused_and_goes_on(app)
    assert app.page.evaluate(KEPT_JS) == []  # neither the page nor the worker kept the changed bytes
    # Chromium sends the finder's synchronous request past the worker; fetched through the worker (as a
    # browser that routes it there, or a prefetch, would), the changed bytes reach the page but are not kept
    through_worker = app.page.evaluate(FETCH_THROUGH_WORKER_JS, list(REST_FILES))
    assert all(status == 200 for status in through_worker), through_worker
    assert len(watch.service_worker_requests()) >= len(REST_FILES), watch.service_worker_requests()
    assert app.page.evaluate(KEPT_JS) == []
    # the next visit does not find them either: the import fetches again, and is refused again
    fetched = len(watch.stdlib_rest_requests())
    app.page.reload()
    wait_until_ready(app.page)
    again = json.loads(app.page.evaluate("(code) => window.__sitewalkPyodide.runPython(code)", IMPORT_REST_PY))
    assert again["raised"]["doctest"][0] == "RestArchiveTampered" and again["imported"] == []
    assert len(watch.stdlib_rest_requests()) > fetched
    assert app.page.evaluate(KEPT_JS) == []
