"""At most a few e2e tests drive Chromium at once, however many pytest workers run.

The unit tests that talk to a live agent server mostly wait (the in-memory server picks a new run up
from its queue after up to a second), so they finish sooner on more workers; the e2e tests are
CPU-bound, and more browsers at once than cores only make each one slower (docs/testing.md). A worker
therefore takes one of a few slots, an exclusive `flock` on a file in a folder all workers share, for
the length of an e2e test, and waits while every slot is taken. The kernel releases a lock whose
worker died, so a crash never strands a slot.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_SECONDS = 0.05


@contextmanager
def browser_slot(folder: Path, count: int) -> Iterator[int]:
    """Hold one of `count` slots under `folder` until the block ends; yields the slot's number."""
    folder.mkdir(parents=True, exist_ok=True)
    handles = [open(folder / f"slot-{i}", "a+") for i in range(count)]  # noqa: SIM115 - closed below
    try:
        while True:
            for number, handle in enumerate(handles):
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                try:
                    yield number
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
                return
            time.sleep(POLL_SECONDS)
    finally:
        for handle in handles:
            handle.close()
