"""The thin layer that touches browser APIs (`js`, `pyodide.ffi`). Everything else is pure Python."""

from __future__ import annotations

import asyncio
import traceback
from typing import Any, Callable, Optional

import js  # type: ignore[import-not-found]
from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

_kept_proxies: list[Any] = []  # event-listener proxies live as long as the page


class LocalStorageStore:
    """localStorage as a KeyValueStore. A missing key comes back as JS null, not None: normalise it."""

    def get(self, key: str) -> Optional[str]:
        value = _or_none(js.localStorage.getItem(key))
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        js.localStorage.setItem(key, value)


def _or_none(value: Any) -> Any:
    """JS null arrives as a JsNull object, not None: normalise it."""
    return None if value is None or type(value).__name__ == "JsNull" else value


def element(element_id: str) -> Any:
    return _or_none(js.document.getElementById(element_id))


def query(parent: Any, selector: str) -> Any:
    return _or_none(parent.querySelector(selector))


def set_html(element_id: str, html: str) -> None:
    element(element_id).innerHTML = html


def on(element_id: str, event: str, handler: Callable[[Any], Any]) -> None:
    """Listen for an event; an async handler runs as a task, its errors reported by `report`."""

    def listener(ev: Any) -> None:
        result = handler(ev)
        if asyncio.iscoroutine(result):
            task = asyncio.ensure_future(result)
            task.add_done_callback(_report_failure)

    proxy = create_proxy(listener)
    _kept_proxies.append(proxy)
    element(element_id).addEventListener(event, proxy)


def _report_failure(task: "asyncio.Future[Any]") -> None:
    if not task.cancelled() and task.exception() is not None:
        exc = task.exception()
        js.console.error("sitewalk: " + "".join(traceback.format_exception(exc)))
        show_status(f"Error: {type(exc).__name__}: {exc}", error=True)


def show_status(text: str, error: bool = False) -> None:
    node = element("sw-status")
    if node is not None:
        node.textContent = text
        node.dataset.error = "1" if error else "0"


def shell() -> Any:
    """The boot shell's helpers (web/boot.js): showError, hideError, onRetry, setProgress, showApp."""
    return js.window.sitewalkShell


def wait_for_retry() -> "asyncio.Future[None]":
    """A future resolved when the user presses the shell's Retry button."""
    future: asyncio.Future[None] = asyncio.get_event_loop().create_future()

    def resolve(*_: Any) -> None:
        if not future.done():
            future.set_result(None)

    proxy = create_proxy(resolve)
    _kept_proxies.append(proxy)
    shell().onRetry(proxy)
    return future


def mark_ready() -> None:
    js.document.body.dataset.ready = "1"
