"""The inspection this page has open, kept on the device (a small localStorage setting) so a reload reopens it.

Written when a start creates its thread or an inspection of the list is opened; removed when it is
cancelled, found gone or another inspector's, or the inspector signs out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..bridge import storage

__all__ = ["THREAD_SETTING", "KeptThread", "forget_thread", "kept_thread", "keep_thread"]

THREAD_SETTING = "sitewalk:current-thread"  # {"thread_id", "inspection_id"}


@dataclass(frozen=True)
class KeptThread:
    thread_id: str
    inspection_id: str


def keep_thread(thread_id: str, inspection_id: str) -> None:
    storage.LocalStorageStore().set(THREAD_SETTING, json.dumps({"thread_id": thread_id,
                                                               "inspection_id": inspection_id}))


def kept_thread() -> KeptThread | None:
    """The thread kept, or None (none kept, or a setting that does not read as one)."""
    try:
        kept = json.loads(storage.LocalStorageStore().get(THREAD_SETTING) or "null")
        return KeptThread(str(kept["thread_id"]), str(kept.get("inspection_id") or ""))
    except (ValueError, TypeError, KeyError):
        return None


def forget_thread() -> None:
    storage.LocalStorageStore().remove(THREAD_SETTING)
