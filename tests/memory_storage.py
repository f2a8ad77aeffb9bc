"""The device's stores over a dict, for tests under CPython: `DictStorage` is a synchronous
`sitewalk.base.device_storage.KeyValueStore` (localStorage in the browser), `MemoryStore` an
`AsyncKeyValueStore` of `sitewalk.headless.local_draft` (IndexedDB in the browser)."""

from __future__ import annotations

__all__ = ["DictStorage", "MemoryStore"]


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


class MemoryStore:
    """An `AsyncKeyValueStore` over a dict."""

    def __init__(self, data: dict[str, str] | None = None):
        self.data: dict[str, str] = dict(data or {})

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def set(self, key: str, value: str) -> None:
        self.data[key] = value
