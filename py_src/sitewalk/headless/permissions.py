"""Which device permission a headless tool needs, and whether this device has denied it.

A browser permission the site was denied (`navigator.permissions`: "denied") stays denied until the
inspector changes the site's settings, so a run that would ask the tool is known to be declined
before it starts, unless the tool lets the inspector type what the device cannot give
(`MANUAL_ENTRY`): then the run goes on and the inspector is asked to type it. "prompt" and
"granted" may still go either way (the app asks first, the inspector may decline), and a browser
that cannot say answers "unknown": neither is a refusal.
Pure: the browser's query is given (`sitewalk.bridge.permissions.query`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

__all__ = ["MANUAL_ENTRY", "NEEDS", "DevicePermissions", "Query"]

# get_current_location reads Geolocation; drafts live in IndexedDB and a photo is picked from a file
# input, neither of which the browser can deny up front.
NEEDS: Mapping[str, str] = {"get_current_location": "geolocation"}
# The tools among NEEDS whose answer the inspector may type when the permission is denied
# (`headless/manual_position.py`), with what the inspector is told before a run that will ask them:
# a denied permission does not decline them up front. A tool of NEEDS not here is declined up front.
MANUAL_ENTRY: Mapping[str, str] = {
    "get_current_location": "Your browser blocks the position: you will be asked to type it."}

Query = Callable[[str], Awaitable[str]]
"""A browser permission name -> its state: granted | denied | prompt | unknown."""


class DevicePermissions:
    def __init__(self, query: Query, needs: Mapping[str, str] = NEEDS,
                 manual: Mapping[str, str] = MANUAL_ENTRY) -> None:
        self._query = query
        self._needs = dict(needs)
        self._manual = dict(manual)

    def needs(self, tool: str) -> str | None:
        return self._needs.get(tool)

    def typed_instead(self, tool: str) -> str | None:
        """What the inspector is told when `tool`'s permission is denied and its answer will be typed
        instead; None when the tool has no manual entry (a denied permission declines it)."""
        return self._manual.get(tool)

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
