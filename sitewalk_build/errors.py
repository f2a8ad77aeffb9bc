"""The build tooling's errors, and its one way to tell the developer what it is doing."""

from __future__ import annotations

import sys


class BuildError(RuntimeError):
    """The build could not produce a verified dist/."""


class AgentServerStartError(RuntimeError):
    """The agent server could not be started (its command, its config) or died; not the client's
    `sitewalk.agentserver.AgentServerError`, which is an error answer of a running server."""


def log(msg: str) -> None:
    print(f"[sitewalk] {msg}", file=sys.stderr, flush=True)
