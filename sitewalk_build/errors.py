"""The build tooling's errors, and its one way to tell the developer what it is doing."""

from __future__ import annotations

import sys


class BuildError(RuntimeError):
    """The build could not produce a verified dist/."""


class AgentServerError(RuntimeError):
    """The agent server failed to start or died."""


def log(msg: str) -> None:
    print(f"[sitewalk] {msg}", file=sys.stderr, flush=True)
