"""The trace backend `./sw serve --traces` and the tracing tests start: Arize Phoenix, on loopback.

Phoenix (`arize-phoenix` on PyPI, the `traces-backend` extra) is a real OpenTelemetry backend that runs on this
machine: `phoenix serve` accepts OTLP over HTTP on its UI port (`/v1/traces`), stores spans in SQLite under
`PHOENIX_WORKING_DIR`, shows them in its UI and returns them through its REST API (`/v1/projects/.../spans`,
which `arize-phoenix-client` reads). It listens on 127.0.0.1 only, its gRPC port is a free one (two Phoenixes
never fight over 4317), and its telemetry is off: nothing leaves the machine.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.logged_process import LoggedProcess
from sitewalk_build.ports import ensure_port_free, free_port

__all__ = ["PhoenixServer", "TraceBackendError", "start_phoenix"]

HOST = "127.0.0.1"


class TraceBackendError(AgentServerStartError):
    """Phoenix is not installed, exited while starting, or did not answer in time."""


@dataclass
class PhoenixServer(LoggedProcess):
    """A running `phoenix serve`: its UI (and REST API) URL and the OTLP/HTTP traces URL servers export to."""

    url: str
    working_dir: Path

    @property
    def otlp_url(self) -> str:
        return self.url + "/v1/traces"


def _phoenix_cmd() -> list[str]:
    cli = Path(sys.executable).parent / "phoenix"
    if not cli.exists():
        raise TraceBackendError("Phoenix is not installed: pip install -e '.[traces-backend]' (./sw does it)")
    return [sys.executable, str(cli), "serve"]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def start_phoenix(working_dir: Path, port: int | None = None, timeout: float = 180.0) -> PhoenixServer:
    """Start Phoenix keeping its data in `working_dir`, on `port` (a free one if None); wait until it answers."""
    working_dir.mkdir(parents=True, exist_ok=True)
    port = port or free_port(HOST)
    ensure_port_free(port, HOST, who="Phoenix")
    env = {**_base_env(), "PHOENIX_WORKING_DIR": str(working_dir), "PHOENIX_HOST": HOST, "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(free_port(HOST)), "PHOENIX_TELEMETRY_ENABLED": "false"}
    log_path = working_dir / "phoenix.log"
    log = open(log_path, "wb")  # owned by the PhoenixServer, closed by stop()
    process = subprocess.Popen(_phoenix_cmd(), env=env, stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    server = PhoenixServer(process, log_path, f"http://{HOST}:{port}", working_dir, log_file=log)
    atexit.register(server.stop)
    deadline = time.monotonic() + timeout
    while not _healthy(server.url):
        if not server.alive() or time.monotonic() > deadline:
            why = "exited while starting" if not server.alive() else f"did not answer within {timeout:.0f} s"
            server.stop()
            raise TraceBackendError(f"Phoenix {why}; last lines of {log_path}:\n{server.log_tail()}")
        time.sleep(0.5)
    return server


def _base_env() -> dict[str, str]:
    import os  # noqa: PLC0415

    # The caller's own OTLP settings are the agent servers' business, not Phoenix's.
    return {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))}
