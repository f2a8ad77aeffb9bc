"""The processes of the durable stack: each started in a session of its own, stopped with everything
it started, and reported with its log's last lines when it dies."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.logged_process import tail
from sitewalk_build.paths import ROOT
from sitewalk_build.process_group import stop_process_group

__all__ = ["HOST", "DurableError", "Part", "http_ok", "tail", "tcp_ok", "wait_ready"]

HOST = "127.0.0.1"


class DurableError(AgentServerStartError):
    """The durable stack could not be installed or started, or a part of it died."""


@dataclass
class Part:
    """One process of the stack: how to start it, and the running process."""

    name: str
    cmd: list[str]
    log_path: Path
    env: dict[str, str] | None = None
    user: str | None = None
    stop_signal: int = signal.SIGTERM
    cwd: Path = ROOT  # the folder it runs in (tests give each server a folder of its own)
    process: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as out:
            # A session of its own: Ctrl-C in the terminal reaches only us, and we stop it.
            self.process = subprocess.Popen(self.cmd, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                            user=self.user)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash would (for fault tests)."""
        if self.alive():
            assert self.process is not None
            self.process.kill()
            self.process.wait(10)

    def stop(self, timeout: float = 15.0) -> None:
        if self.process is None:
            return
        stop_process_group(self.process, first=self.stop_signal, timeout=timeout, leftovers=signal.SIGKILL)

    def died(self) -> str:
        """'' while alive; else what happened, with the log's last lines."""
        if self.alive() or self.process is None:
            return ""
        return f"{self.name} exited with code {self.process.returncode}; last lines of its log:\n{tail(self.log_path)}"


def wait_ready(part: Part, ready: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if not part.alive():
            raise DurableError(f"{part.died()}\n(while waiting for {what})")
        if time.monotonic() > deadline:
            raise DurableError(f"{part.name}: no {what} within {timeout:.0f} s; last lines of its log:\n"
                               f"{tail(part.log_path)}")
        time.sleep(0.2)
    if not part.alive():  # answered, but not by this part: it has died meanwhile (e.g. its port was taken)
        raise DurableError(f"{part.died()}\n(after an answer to {what} came from another process)")


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def tcp_ok(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        return s.connect_ex((HOST, port)) == 0

