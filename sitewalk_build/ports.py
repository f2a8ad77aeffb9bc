"""Free TCP ports for the servers this project starts, each given to one caller on the machine at a time.

The kernel's `bind(port 0)` names a port that is free at that moment; the server binds it later (Aegra a
minute later on a loaded machine). Test workers start servers at the same time, so two of them could be
handed the same port: the second server then fails to bind while its readiness check is answered by the
first one, and its tests talk to another worker's server (a CI run saw work orders land in the other
worker's database, then the page's requests refused once that worker stopped its server).

So a port handed out is leased: a file named by the port, created exclusively in one folder of the
machine's temporary directory. No other caller gets that port until the lease is older than
LEASE_SECONDS, by then long bound by its server (a bound port is never offered by the kernel again while
it is held). Nothing in the standard library or our dependencies leases ports across processes; this is
the smallest thing that does.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

from sitewalk_build.errors import AgentServerStartError

LEASE_SECONDS = 600.0  # longer than any server here may take to bind (Aegra's start waits at most 120 s)
ATTEMPTS = 64

__all__ = ["LEASE_SECONDS", "ensure_port_free", "free_port", "lease_folder", "port_free"]


def lease_folder() -> Path:
    """Where the leases are: one folder for every process of the machine (SITEWALK_PORT_LEASES moves it)."""
    return Path(os.environ.get("SITEWALK_PORT_LEASES") or Path(tempfile.gettempdir()) / "sitewalk-port-leases")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free now on `host` that no other caller of this function on the machine holds a lease on."""
    folder = lease_folder()
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(ATTEMPTS):
        port = _kernel_free_port(host)
        if _take_lease(folder / str(port)):
            return port
    raise AgentServerStartError(f"no free port on {host} after {ATTEMPTS} tries: every one the kernel offered "
                                f"was leased in {folder}")


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on `port` of `host` now: bound as the servers bind (SO_REUSEADDR, as
    uvicorn, Postgres and Redis do), so the closed connections a stopped server leaves do not count."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def ensure_port_free(port: int, host: str = "127.0.0.1", *, who: str = "the server") -> None:
    """Raise before starting `who` on a port something else listens on: its readiness check would be
    answered by that other server, and the caller would talk to it."""
    if not port_free(port, host):
        raise AgentServerStartError(f"{who} cannot start on {host}:{port}: another process listens there")


def _kernel_free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def _take_lease(lease: Path) -> bool:
    """Create the lease exclusively; a lease past LEASE_SECONDS is removed first (by one taker: the rename
    to a name of its own succeeds for only one of two callers that both found it stale)."""
    try:
        if time.time() - lease.stat().st_mtime > LEASE_SECONDS:
            mine = lease.with_name(f"{lease.name}.stale-{os.getpid()}-{time.monotonic_ns()}")
            os.rename(lease, mine)
            mine.unlink()
    except FileNotFoundError:
        pass  # no lease yet, or another caller took the stale one first: the exclusive create decides
    try:
        os.close(os.open(lease, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:
        return False
    return True
