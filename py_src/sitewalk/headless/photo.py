"""`attach_photo`: the inspector picks a photo; the agent gets its metadata only.

`pick(purpose)` shows the purpose with a file picker and returns the picked file's metadata
({name, size, type, sha256}) or None when the inspector cancels. The file, a handle to it or
its bytes never enter the result: the result model has no field that could hold them.

The browser hashes a file by reading it whole, so a file over MAX_PHOTO_BYTES is refused before
it is read (`sha256` None) rather than taking a phone's memory.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import AttachPhotoArgs, AttachPhotoResult

from .registry import ToolFailed

__all__ = ["MAX_PHOTO_BYTES", "attach_photo"]

MAX_PHOTO_BYTES = 25 * 1024 * 1024  # a phone camera's photo is well under this

Pick = Callable[[str], Awaitable[Mapping[str, Any] | None]]


def attach_photo(pick: Pick):
    async def implementation(args: AttachPhotoArgs) -> AttachPhotoResult:
        picked = await pick(args.purpose)
        if picked is None:
            raise ToolFailed(ErrorCode.permission_denied, "the inspector did not attach a photo",
                             reason="declined_by_user")
        kind = str(picked.get("type") or "")
        if not kind.startswith("image/"):
            raise ToolFailed(ErrorCode.invalid_args, f"the picked file is not an image ({kind or 'unknown type'})",
                             type=kind)
        size = int(picked.get("size") or 0)
        if size > MAX_PHOTO_BYTES or picked.get("sha256") is None:
            raise ToolFailed(ErrorCode.invalid_args,
                             f"the picked file is {size / 2**20:.1f} MB; a photo may be at most "
                             f"{MAX_PHOTO_BYTES // 2**20} MB", size=size, max_size=MAX_PHOTO_BYTES)
        # Only these four fields are read; the registry checks them against AttachPhotoResult.
        return AttachPhotoResult.model_construct(name=str(picked["name"])[:255], size=int(picked["size"]), type=kind,
                                                 sha256=str(picked["sha256"]).lower())

    return implementation
