"""A server process this project started, with the log it writes: alive or not, its log's last lines, stopped
with everything it started. The agent server (`agent_server.AgentServer`) and the trace backend
(`phoenix.PhoenixServer`) are each one, with their own URLs; `tail` reads any log the same way."""

from __future__ import annotations

import contextlib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sitewalk_build.process_group import stop_process_group

ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # colours in a server's log, which a report shows as text

__all__ = ["LoggedProcess", "tail"]


def tail(path: Path, lines: int = 30) -> str:
    """The last `lines` lines of a log, without terminal colours ('' when it cannot be read)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(ANSI_RE.sub("", text).splitlines()[-lines:])


@dataclass
class LoggedProcess:
    """A running process (in a process group of its own) and the log file it writes, which `stop` closes."""

    process: subprocess.Popen[bytes]
    log_path: Path
    log_file: IO[bytes] | None = field(default=None, repr=False, kw_only=True)

    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    def log_tail(self, lines: int = 30) -> str:
        return tail(self.log_path, lines)

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop the process and everything it started (its process group); its exit code."""
        stop_process_group(self.process, timeout=timeout)
        if self.log_file is not None:
            with contextlib.suppress(OSError):
                self.log_file.close()
            self.log_file = None
        return self.process.returncode

    def __enter__(self) -> LoggedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
