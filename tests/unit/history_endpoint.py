"""A checkpoint-history endpoint over recorded entries, for the timeline pager's tests (importable: test
files are not): `served` answers pages as the server does; `older_pages_held` holds every read of an older
page until the test opens its gate (a read on its way while something else happens)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Fetch = Callable[[int, str | None], Awaitable[list[Any]]]


def served(entries: list[Any], calls: list[tuple[int, str | None]] | None = None) -> Fetch:
    """Newest first, `before` exclusive, `limit` entries; each read's (limit, before) noted in `calls`."""
    async def fetch(limit: int, before: str | None) -> list[Any]:
        if calls is not None:
            calls.append((limit, before))
        start = 0 if before is None else [e["checkpoint"]["checkpoint_id"] for e in entries].index(before) + 1
        return entries[start:start + limit]
    return fetch


def older_pages_held(fetch: Fetch, gate: asyncio.Event, asked: asyncio.Event | None = None) -> Fetch:
    """`fetch`, but a read of an older page (`before` given) sets `asked` and waits for `gate`."""
    async def held(limit: int, before: str | None) -> list[Any]:
        if before is not None:
            if asked is not None:
                asked.set()
            await gate.wait()
        return await fetch(limit, before)
    return held
