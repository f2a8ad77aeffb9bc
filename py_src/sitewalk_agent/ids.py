"""Fresh ids for messages and tool calls."""

from __future__ import annotations

import uuid

__all__ = ["new_id"]


def new_id(prefix: str) -> str:
    """A fresh id, unique across threads, forks and replays (the SDK never answers an id twice)."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"
