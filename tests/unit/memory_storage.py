"""localStorage's get/set/remove over a dict, for the pure code that keeps things on the device."""

from __future__ import annotations


class MemoryStorage:
    def __init__(self, data: dict[str, str] | None = None) -> None:
        self.data = dict(data or {})

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)
