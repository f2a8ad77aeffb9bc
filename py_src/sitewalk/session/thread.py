"""The thread a session's parts work on, and how they wait for the network.

A part is built once its thread exists, so it never holds an Optional thread id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["ASSISTANT_ID", "Thread", "WaitForNetwork", "backoff"]

ASSISTANT_ID = "inspection"

WaitForNetwork = Callable[[int], Awaitable[None]]
"""`await wait(attempt)` returns when it is worth trying again (the browser: back online)."""


@dataclass(frozen=True)
class Thread:
    """One conversation on the agent server, and the assistant its runs use."""

    id: str
    assistant_id: str = ASSISTANT_ID
    owner: str | None = None
    """The signed-in identity the server files the thread's store items under (None without sign-in)."""


async def backoff(attempt: int) -> None:
    """Without a network signal: wait longer after each failed attempt (at most 15 s)."""
    await asyncio.sleep(min(0.25 * 2**attempt, 15.0))
