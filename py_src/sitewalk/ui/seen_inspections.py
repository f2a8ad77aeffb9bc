"""The list of inspections as the app last read it, kept on this device for the next visit's first paint.

On a phone Python takes seconds to boot; until it has, boot.js draws this record into the pre-rendered list
(web/boot.js, `showSeenInspections`), its buttons disabled, under a line saying when it was read. The markup
has one source: the first screen renders `inspections.j2` with `PLACEHOLDER` into app.j2's
`<template id="sw-inspection-row">`, and boot.js only swaps each placeholder ("@sw:…") for the row's value,
in attribute values and text, in one pass (a value is never read as a placeholder). The app writes the record
each time it draws the list (app/inspections_view.py) and forgets it on sign-out: whoever uses the device
next must not see the list. Pure: no browser imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["KEY", "PLACEHOLDER", "VERSION", "row_fields", "seen_record"]

KEY = "sitewalk:inspections-seen"  # localStorage; boot.js reads the same key
VERSION = 1  # boot.js draws a record of this version only


class _Status(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def words(self) -> str: ...


class ListedInspection(Protocol):
    """What inspections.j2 reads of an entry (`sitewalk.inspections.Inspection` has it)."""

    @property
    def thread_id(self) -> str: ...
    @property
    def inspection_id(self) -> str: ...
    @property
    def status(self) -> _Status: ...
    @property
    def updated_at(self) -> str: ...
    @property
    def updated_text(self) -> str: ...


@dataclass(frozen=True)
class _PlaceholderStatus:
    name: str = "@sw:status"
    words: str = "@sw:status-words"


@dataclass(frozen=True)
class _PlaceholderEntry:
    thread_id: str = "@sw:thread-id"
    inspection_id: str = "@sw:inspection-id"
    status: _PlaceholderStatus = _PlaceholderStatus()
    updated_at: str = "@sw:updated-at"
    updated_text: str = "@sw:updated-text"


PLACEHOLDER = _PlaceholderEntry()


def row_fields(entry: ListedInspection) -> dict[str, str]:
    """Each placeholder of the row template with this entry's value for it."""
    return {
        PLACEHOLDER.thread_id: entry.thread_id,
        PLACEHOLDER.inspection_id: entry.inspection_id,
        PLACEHOLDER.status.name: entry.status.name,
        PLACEHOLDER.status.words: entry.status.words,
        PLACEHOLDER.updated_at: entry.updated_at,
        PLACEHOLDER.updated_text: entry.updated_text,
    }


def seen_record(server_url: str, entries: Iterable[ListedInspection], read_at: str) -> str:
    """The JSON text kept under `KEY`: which server the list came from (boot.js draws it for that server
    only), when it was read (ISO 8601) and a row of placeholder values per entry."""
    return json.dumps({"v": VERSION, "server": server_url, "readAt": read_at,
                       "rows": [row_fields(entry) for entry in entries]})
