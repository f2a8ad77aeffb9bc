"""Which device permission a headless tool needs, and whether this device has denied it.

A browser permission the site was denied (`navigator.permissions`: "denied") stays denied until the
inspector changes the site's settings, so a run that would ask the tool is known to be declined
before it starts. "prompt" and "granted" may still go either way (the app asks first, the
inspector may decline), and a browser that cannot say answers "unknown": neither is a refusal.
Pure: the browser's query is given (`sitewalk.bridge.permissions.query`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

__all__ = ["NEEDS", "DevicePermissions", "Query"]

# get_current_location reads Geolocation; drafts live in IndexedDB and a photo is picked from a file
# input, neither of which the browser can deny up front.
NEEDS: Mapping[str, str] = {"get_current_location": "geolocation"}

Query = Callable[[str], Awaitable[str]]
"""A browser permission name -> its state: granted | denied | prompt | unknown."""


class DevicePermissions:
    def __init__(self, query: Query, needs: Mapping[str, str] = NEEDS) -> None:
        self._query = query
        self._needs = dict(needs)

    def needs(self, tool: str) -> str | None:
        return self._needs.get(tool)

    async def denied(self, tool: str) -> str | None:
        """The permission `tool` needs when this device has denied it, else None (also when unknown)."""
        permission = self._needs.get(tool)
        if permission is None:
            return None
        try:
            state = await self._query(permission)
        except Exception:  # a browser that cannot say: the run finds out, as before
            return None
        return permission if state == "denied" else None
