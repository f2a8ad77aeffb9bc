"""The browser seam under CPython: `is_none`, and the one place that picks the transport."""

from __future__ import annotations

import importlib
import sys
import types

from sitewalk.agentserver import HttpxTransport, default_transport
from sitewalk.bridge import is_none, or_none


class JsNull:  # what Pyodide hands Python for a JS null (matched by type name, as in the browser)
    def __bool__(self) -> bool:
        return False


def test_is_none_is_true_for_none_and_js_null_only():
    assert is_none(None) and is_none(JsNull())
    assert not any(is_none(value) for value in (0, "", False, [], {}, "null"))
    null = JsNull()
    assert or_none(null) is None and or_none(0) == 0 and or_none("x") == "x"


def test_the_bridge_package_imports_without_a_browser():
    assert "js" not in sys.modules  # importing sitewalk.bridge above did not need (or fake) one


def test_cpython_gets_the_httpx_transport():
    assert isinstance(default_transport(), HttpxTransport)


def test_under_pyodide_the_seam_picks_the_browser_fetch_transport(monkeypatch):
    # Stand-ins for the modules Pyodide provides: enough for bridge.fetch to import.
    js = types.ModuleType("js")
    pyodide = types.ModuleType("pyodide")
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsException = type("JsException", (Exception,), {})
    ffi.to_js = lambda value, **_: value
    for name, module in {"js": js, "pyodide": pyodide, "pyodide.ffi": ffi,
                         "_pyodide_core": types.ModuleType("_pyodide_core")}.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "sitewalk.bridge.fetch", raising=False)
    compat = importlib.import_module("sitewalk.agentserver._compat")
    try:
        importlib.reload(compat)
        assert compat.IN_BROWSER
        assert type(compat.default_transport()).__module__ == "sitewalk.bridge.fetch"
    finally:
        monkeypatch.undo()
        sys.modules.pop("sitewalk.bridge.fetch", None)
        importlib.reload(compat)
    assert not compat.IN_BROWSER and isinstance(compat.default_transport(), HttpxTransport)
