"""Stopping a server that was started in a process group of its own, with everything it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

__all__ = ["stop_process_group"]


def stop_process_group(process: subprocess.Popen[bytes], first: int = signal.SIGTERM, timeout: float = 10.0,
                       leftovers: int = signal.SIGTERM) -> int | None:
    """Signal the group (`first`, then SIGKILL after `timeout`); return the leader's exit code.

    A leader that already died may have left children (e.g. uvicorn's) behind: they get `leftovers`.
    """
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, first)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, leftovers)
    return process.returncode
