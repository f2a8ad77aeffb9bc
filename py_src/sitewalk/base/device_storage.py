"""The device's synchronous key-value store (localStorage: `sitewalk.bridge.storage.LocalStorageStore`),
as the pure code that keeps things on the device sees it: the sign-in token, waiting messages, old drafts.

Tests use a dict behind the same protocol (`tests/memory_storage.py`).
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["KeyValueStore"]


class KeyValueStore(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def remove(self, key: str) -> None: ...
