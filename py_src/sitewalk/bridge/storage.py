"""The thin layer that touches browser APIs (`js`, `pyodide.ffi`). Everything else is pure Python."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from typing import Any

import js  # type: ignore[import-not-found]
from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

from .headless.local_draft import StorageError
from .headless.location import POSITION_UNAVAILABLE, PositionError

_kept_proxies: list[Any] = []  # event-listener proxies live as long as the page


class LocalStorageStore:
    """localStorage as a KeyValueStore. A missing key comes back as JS null, not None: normalise it."""

    def get(self, key: str) -> str | None:
        value = _or_none(js.localStorage.getItem(key))
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        js.localStorage.setItem(key, value)

    def remove(self, key: str) -> None:
        js.localStorage.removeItem(key)


DB_NAME = "sitewalk"
DB_VERSION = 1
DRAFTS = "drafts"  # object store: key -> JSON text of a draft


class IndexedDbStore:
    """One IndexedDB object store as an AsyncKeyValueStore of strings.

    A transaction auto-commits across a Python `await`, so each call is one request in its own
    transaction, awaited to completion. Failures raise `StorageError` (an OSError).
    """

    def __init__(self, store_name: str = DRAFTS, db_name: str = DB_NAME):
        self.store_name = store_name
        self.db_name = db_name
        self._db: Any = None

    async def _open(self) -> Any:
        if self._db is None:
            if _or_none(getattr(js, "indexedDB", None)) is None:
                raise StorageError("IndexedDB is not available in this browser")
            request = js.indexedDB.open(self.db_name, DB_VERSION)

            def upgrade(_event: Any) -> None:
                db = request.result
                if not db.objectStoreNames.contains(self.store_name):
                    db.createObjectStore(self.store_name)

            self._db = await _request_done(request, onupgradeneeded=upgrade)
        return self._db

    async def get(self, key: str) -> str | None:
        db = await self._open()
        try:
            request = db.transaction(self.store_name, "readonly").objectStore(self.store_name).get(key)
        except Exception as exc:  # e.g. InvalidStateError when the connection closed
            raise StorageError(str(exc)) from None
        value = _or_none(await _request_done(request))
        if value is None or isinstance(value, str):
            return value
        return str(js.JSON.stringify(value))  # not written by us: let the parser judge it

    async def set(self, key: str, value: str) -> None:
        db = await self._open()
        try:
            transaction = db.transaction(self.store_name, "readwrite")
            transaction.objectStore(self.store_name).put(value, key)
        except Exception as exc:
            raise StorageError(str(exc)) from None
        await _transaction_done(transaction)


def _dom_error(target: Any) -> str:
    error = _or_none(getattr(target, "error", None))
    if error is None:
        return "the request failed"
    return f"{getattr(error, 'name', 'Error')}: {getattr(error, 'message', '')}"


def _settle_with(target: Any, events: dict[str, Callable[[Any], Any]]) -> None:
    """Attach one-shot handlers (on<event> properties); every proxy is destroyed when one fires."""
    proxies: list[Any] = []

    def wrap(handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def call(event: Any) -> None:
            try:
                handler(event)
            finally:  # detach now; destroy once the proxy's own call has returned
                for other in events:
                    setattr(target, other, None)
                asyncio.get_event_loop().call_soon(_destroy_all, list(proxies))
                proxies.clear()

        return call

    for name, handler in events.items():
        proxy = create_proxy(wrap(handler))
        proxies.append(proxy)
        setattr(target, name, proxy)


def _destroy_all(proxies: list[Any]) -> None:
    for proxy in proxies:
        proxy.destroy()


def _request_done(request: Any, onupgradeneeded: Callable[[Any], None] | None = None) -> asyncio.Future[Any]:
    """A future for an IDBRequest: its result, or StorageError. Never a rejected JS promise."""
    future: asyncio.Future[Any] = asyncio.get_event_loop().create_future()

    def success(_event: Any) -> None:
        if not future.done():
            future.set_result(request.result)

    def failure(event: Any) -> None:
        if hasattr(event, "preventDefault"):
            event.preventDefault()
        if not future.done():
            future.set_exception(StorageError(_dom_error(request)))

    def blocked(_event: Any) -> None:
        if not future.done():
            future.set_exception(StorageError("the database upgrade is blocked by another tab"))

    events: dict[str, Callable[[Any], Any]] = {"onsuccess": success, "onerror": failure}
    if onupgradeneeded is not None:
        events["onblocked"] = blocked
        upgrade = create_proxy(onupgradeneeded)
        _kept_proxies.append(upgrade)  # fires before success; tiny, kept with the page
        request.onupgradeneeded = upgrade
    _settle_with(request, events)
    return future


def _transaction_done(transaction: Any) -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_event_loop().create_future()

    def complete(_event: Any) -> None:
        if not future.done():
            future.set_result(None)

    def failure(_event: Any) -> None:
        if not future.done():
            future.set_exception(StorageError(_dom_error(transaction)))

    _settle_with(transaction, {"oncomplete": complete, "onerror": failure, "onabort": failure})
    return future


def _or_none(value: Any) -> Any:
    """JS null arrives as a JsNull object, not None: normalise it."""
    return None if value is None or type(value).__name__ == "JsNull" else value


def element(element_id: str) -> Any:
    return _or_none(js.document.getElementById(element_id))


def query(parent: Any, selector: str) -> Any:
    return _or_none(parent.querySelector(selector))


def ensure_element(element_id: str, tag: str, class_name: str, role: str, parent: Any, before: Any) -> Any:
    """The element with this id, created once (inserted into `parent` before `before`) if missing."""
    node = element(element_id)
    if node is None:
        node = js.document.createElement(tag)
        node.id = element_id
        node.className = class_name
        node.setAttribute("role", role)
        parent.insertBefore(node, before)
    return node


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


def _report_failure(task: asyncio.Future[Any]) -> None:
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


def wait_for_retry() -> asyncio.Future[None]:
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


# --- device APIs -------------------------------------------------------------------------------
# Each answers through Python callbacks and an asyncio future, never by awaiting a JS promise that
# could reject with a non-Error value (GeolocationPositionError would hang Pyodide).


def geolocate(timeout_ms: int, high_accuracy: bool = False) -> asyncio.Future[dict[str, Any]]:
    """One position fix: {latitude, longitude, accuracy, timestamp}, or PositionError(code)."""
    future: asyncio.Future[dict[str, Any]] = asyncio.get_event_loop().create_future()
    geolocation = _or_none(getattr(js.navigator, "geolocation", None))
    if geolocation is None:
        future.set_exception(PositionError(POSITION_UNAVAILABLE, "this browser has no Geolocation"))
        return future
    proxies: list[Any] = []

    def done() -> None:
        asyncio.get_event_loop().call_soon(_destroy_all, list(proxies))
        proxies.clear()

    def success(position: Any) -> None:
        try:
            if not future.done():
                coords = position.coords
                future.set_result({"latitude": float(coords.latitude), "longitude": float(coords.longitude),
                                   "accuracy": float(coords.accuracy), "timestamp": float(position.timestamp)})
        finally:
            done()

    def failure(error: Any) -> None:
        try:
            if not future.done():
                future.set_exception(PositionError(int(error.code), str(getattr(error, "message", "") or "")))
        finally:
            done()

    proxies.extend([create_proxy(success), create_proxy(failure)])
    options = js.Object.new()
    options.timeout = int(timeout_ms)
    options.enableHighAccuracy = bool(high_accuracy)
    options.maximumAge = 0
    try:
        geolocation.getCurrentPosition(proxies[0], proxies[1], options)
    except Exception as exc:  # e.g. blocked by a permissions policy
        done()
        future.set_exception(PositionError(POSITION_UNAVAILABLE, str(exc)))
    return future


async def file_metadata(file: Any, max_bytes: int) -> dict[str, Any]:
    """{name, size, type, sha256} of a File; the bytes are hashed by the browser and dropped.

    A file over `max_bytes` is not read at all (`sha256` None): hashing reads it whole.
    """
    if int(file.size) > max_bytes:
        return {"name": str(file.name), "size": int(file.size), "type": str(file.type or ""), "sha256": None}
    buffer = await file.arrayBuffer()
    digest = await js.crypto.subtle.digest("SHA-256", buffer)
    return {"name": str(file.name), "size": int(file.size), "type": str(file.type or ""),
            "sha256": js.Uint8Array.new(digest).to_bytes().hex()}


async def wait_for_online(attempt: int) -> None:
    """Back off before delivery attempt `attempt` + 1, and wait while the browser says it is offline.

    Polls `navigator.onLine` (no event proxies to keep); Playwright's offline mode and a phone's
    flight mode both flip it. Online but unreachable backs off 0.5, 1, 2 ... up to 15 s.
    """
    while not bool(js.navigator.onLine):
        await asyncio.sleep(0.25)
    await asyncio.sleep(min(0.25 * 2 ** attempt, 15.0))
