"""The recorded history fixtures (tests/unit/fixtures/history/*.json) as stored and as tests read them.

Stored compact (no indentation) and each checkpoint once: a recording's history pages overlap (a page
read again, `all` repeating every page), so the file keeps the entries under "checkpoints", keyed by
checkpoint id, and each list of entries ("pages", "nested_pages", "all") as a list of those ids.
`load_history` gives the recording back as the recorder made it, entries in place of ids.
`./sw record-fixtures` writes them (tests/unit/fixtures/record_all.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["HISTORY", "dump_compact", "load_history", "pack_history", "save_history", "unpack_history"]

HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"
PAGED = ("pages", "nested_pages")  # lists of pages of entries
FLAT = ("all",)  # lists of entries


def pack_history(data: dict[str, Any]) -> dict[str, Any]:
    """The recording with each entry once, under "checkpoints"; raises ValueError when one id names two entries."""
    checkpoints: dict[str, Any] = {}

    def ref(entry: dict[str, Any]) -> str:
        checkpoint_id = entry["checkpoint"]["checkpoint_id"]
        if checkpoints.setdefault(checkpoint_id, entry) != entry:
            raise ValueError(f"two different history entries have the checkpoint id {checkpoint_id}")
        return str(checkpoint_id)

    packed = {key: value for key, value in data.items() if key not in PAGED + FLAT}
    for key in PAGED:
        if key in data:
            packed[key] = [[ref(entry) for entry in page] for page in data[key]]
    for key in FLAT:
        if key in data:
            packed[key] = [ref(entry) for entry in data[key]]
    packed["checkpoints"] = checkpoints
    return packed


def unpack_history(packed: dict[str, Any]) -> dict[str, Any]:
    checkpoints = packed["checkpoints"]
    data = {key: value for key, value in packed.items() if key != "checkpoints"}
    for key in PAGED:
        if key in packed:
            data[key] = [[checkpoints[i] for i in page] for page in packed[key]]
    for key in FLAT:
        if key in packed:
            data[key] = [checkpoints[i] for i in packed[key]]
    return data


def dump_compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"


def load_history(name: str) -> dict[str, Any]:
    """The recording `name` (e.g. "confirm_fork.json") with its pages of entries."""
    return unpack_history(json.loads((HISTORY / name).read_text("utf-8")))


def save_history(name: str, data: dict[str, Any]) -> Path:
    path = HISTORY / name
    path.write_text(dump_compact(pack_history(data)), "utf-8")
    return path
