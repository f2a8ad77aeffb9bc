"""Files the inspector picks: which one, and its metadata. The bytes never leave the browser."""

from __future__ import annotations

from typing import Any

import js

from .dom import element
from .values import or_none

__all__ = ["file_metadata", "picked_file"]


def picked_file(input_id: str) -> Any:
    """The first file chosen in the file input with this id, or None."""
    files = or_none(element(input_id).files)
    return or_none(files.item(0)) if files is not None and files.length else None


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
