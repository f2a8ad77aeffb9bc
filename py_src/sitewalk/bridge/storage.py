"""Storage on the device: localStorage for small settings, IndexedDB for drafts and answers.

IndexedDB is driven through `on<event>` callbacks into asyncio futures: a transaction auto-commits
across a Python `await`, so each call is one request in its own transaction, awaited to completion.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import js
from pyodide.ffi import JsException, create_proxy

from ..base.device_errors import StorageError
from .tasks import destroy_later, keep
from .values import JsProxy, or_none

__all__ = ["IndexedDbStore", "LocalStorageStore"]


class LocalStorageStore:
    """localStorage as a KeyValueStore. A missing key comes back as JS null, not None: normalise it."""

    def get(self, key: str) -> str | None:
        value = or_none(js.localStorage.getItem(key))
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        """Keep `value`; StorageError when the browser refuses (storage full, or off for this site)."""
        try:
            js.localStorage.setItem(key, value)
        except JsException as exc:  # QuotaExceededError, SecurityError
            raise StorageError(f"localStorage refused {key!r}: {exc}") from None

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
        self._db: JsProxy = None

    async def _open(self) -> JsProxy:
        if self._db is None:
            if or_none(getattr(js, "indexedDB", None)) is None:
                raise StorageError("IndexedDB is not available in this browser")
            request = js.indexedDB.open(self.db_name, DB_VERSION)

            def upgrade(_event: object) -> None:
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
        value = or_none(await _request_done(request))
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


def _dom_error(target: object) -> str:
    error = or_none(getattr(target, "error", None))
    if error is None:
        return "the request failed"
    return f"{getattr(error, 'name', 'Error')}: {getattr(error, 'message', '')}"


def _settle_with(target: object, events: dict[str, Callable[[object], None]]) -> None:
    """Attach one-shot handlers (on<event> properties); every proxy is destroyed when one fires."""
    proxies: list[object] = []

    def wrap(handler: Callable[[object], None]) -> Callable[[object], None]:
        def call(event: object) -> None:
            try:
                handler(event)
            finally:  # detach now; destroy once the proxy's own call has returned
                for other in events:
                    setattr(target, other, None)
                destroy_later(proxies)
                proxies.clear()

        return call

    for name, handler in events.items():
        proxy = create_proxy(wrap(handler))
        proxies.append(proxy)
        setattr(target, name, proxy)


def _request_done(request: JsProxy, onupgradeneeded: Callable[[object], None] | None = None
                  ) -> asyncio.Future[JsProxy]:
    """A future for an IDBRequest: its result, or StorageError. Never a rejected JS promise."""
    future: asyncio.Future[JsProxy] = asyncio.get_event_loop().create_future()

    def success(_event: object) -> None:
        if not future.done():
            future.set_result(request.result)

    def failure(event: JsProxy) -> None:
        if hasattr(event, "preventDefault"):
            event.preventDefault()
        if not future.done():
            future.set_exception(StorageError(_dom_error(request)))

    def blocked(_event: object) -> None:
        if not future.done():
            future.set_exception(StorageError("the database upgrade is blocked by another tab"))

    events: dict[str, Callable[[object], None]] = {"onsuccess": success, "onerror": failure}
    if onupgradeneeded is not None:
        events["onblocked"] = blocked
        # Fires before success; tiny, kept with the page.
        request.onupgradeneeded = keep(create_proxy(onupgradeneeded))
    _settle_with(request, events)
    return future


def _transaction_done(transaction: object) -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_event_loop().create_future()

    def complete(_event: object) -> None:
        if not future.done():
            future.set_result(None)

    def failure(_event: object) -> None:
        if not future.done():
            future.set_exception(StorageError(_dom_error(transaction)))

    _settle_with(transaction, {"oncomplete": complete, "onerror": failure, "onabort": failure})
    return future
