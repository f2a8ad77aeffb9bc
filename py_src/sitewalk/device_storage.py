"""The device's synchronous key-value store (localStorage: `sitewalk.bridge.storage.LocalStorageStore`),
as the pure code that keeps things on the device sees it: the sign-in token, waiting messages, old drafts.

`DictStorage` is the same over a dict, for tests and CPython.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["DictStorage", "KeyValueStore"]


class KeyValueStore(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def remove(self, key: str) -> None: ...


class DictStorage:
    """A `KeyValueStore` over a dict."""

    def __init__(self, data: dict[str, str] | None = None) -> None:
        self.data: dict[str, str] = dict(data or {})

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)
