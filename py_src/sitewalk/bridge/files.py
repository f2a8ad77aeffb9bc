"""Files the inspector picks (which one, its metadata: the bytes never leave the browser), and files the
app offers for download (made from a Blob in the page: nothing is uploaded)."""

from __future__ import annotations

import js
from pyodide.ffi import to_js

from .dom import element
from .values import JsProxy, or_none

__all__ = ["file_metadata", "offer_download", "picked_file"]


def picked_file(input_id: str) -> JsProxy:
    """The first file chosen in the file input with this id, or None."""
    files = or_none(element(input_id).files)
    return or_none(files.item(0)) if files is not None and files.length else None


async def file_metadata(file: JsProxy, max_bytes: int) -> dict[str, str | int | None]:
    """{name, size, type, sha256} of a File; the bytes are hashed by the browser and dropped.

    A file over `max_bytes` is not read at all (`sha256` None): hashing reads it whole.
    """
    if int(file.size) > max_bytes:
        return {"name": str(file.name), "size": int(file.size), "type": str(file.type or ""), "sha256": None}
    buffer = await file.arrayBuffer()
    digest = await js.crypto.subtle.digest("SHA-256", buffer)
    return {"name": str(file.name), "size": int(file.size), "type": str(file.type or ""),
            "sha256": js.Uint8Array.new(digest).to_bytes().hex()}


def offer_download(anchor_id: str, file_name: str, text: str, mime: str = "application/json") -> None:
    """Point the link with this id at `text` as a file named `file_name` (a Blob URL; the old one is freed)."""
    anchor = element(anchor_id)
    old = or_none(anchor.getAttribute("href"))
    if old is not None and str(old).startswith("blob:"):
        js.URL.revokeObjectURL(old)
    blob = js.Blob.new(to_js([text]), to_js({"type": mime}, dict_converter=js.Object.fromEntries))
    anchor.setAttribute("href", js.URL.createObjectURL(blob))
    anchor.setAttribute("download", file_name)
    anchor.hidden = False
