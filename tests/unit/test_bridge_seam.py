"""The browser seam under CPython: `is_none`, and the transport the app hands the client."""

from __future__ import annotations

import importlib
import sys
import types

from sitewalk.agentserver import AgentServerClient, HttpxTransport, Transport
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


def test_the_client_uses_httpx_unless_handed_a_transport():
    assert isinstance(AgentServerClient("http://agent.test")._http.transport, HttpxTransport)
    handed = HttpxTransport()
    assert AgentServerClient("http://agent.test", transport=handed)._http.transport is handed


def test_the_browser_transport_the_app_hands_in_is_a_transport(monkeypatch):
    # Stand-ins for the modules Pyodide provides: enough for bridge.fetch to import.
    js = types.ModuleType("js")
    pyodide = types.ModuleType("pyodide")
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsException = type("JsException", (Exception,), {})
    ffi.to_js = lambda value, **_: value
    for name, module in {"js": js, "pyodide": pyodide, "pyodide.ffi": ffi}.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "sitewalk.bridge.fetch", raising=False)
    try:
        fetch = importlib.import_module("sitewalk.bridge.fetch")
        transport = fetch.BrowserTransport()
        assert isinstance(transport, Transport)
        assert AgentServerClient("http://agent.test", transport=transport)._http.transport is transport
    finally:
        monkeypatch.undo()
        sys.modules.pop("sitewalk.bridge.fetch", None)
