"""The Permissions API: the state of one browser permission (`navigator.permissions.query`)."""

from __future__ import annotations

import js

from .values import or_none

__all__ = ["query"]


async def query(name: str) -> str:
    """granted | denied | prompt, or "unknown" when the browser cannot say (no API, an unknown name)."""
    permissions = or_none(getattr(js.navigator, "permissions", None))
    if permissions is None:
        return "unknown"
    descriptor = js.Object.new()
    descriptor.name = name
    try:
        status = await permissions.query(descriptor)  # rejects with a TypeError (an Error) for an unknown name
    except Exception:
        return "unknown"
    return str(status.state)
