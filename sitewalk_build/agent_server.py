"""A ``langgraph dev`` agent server, started on a free port and stopped with everything it started."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.logged_process import LoggedProcess
from sitewalk_build.no_tracing import tracing_off
from sitewalk_build.paths import ROOT
from sitewalk_build.ports import ensure_port_free, free_port


def _langgraph_cmd() -> list[str]:
    """The `langgraph` CLI of this interpreter's environment, run BY this interpreter: a venv copied from
    another folder keeps the other venv's interpreter in its scripts' first line, and the server would
    then import that venv's (and its editable install's) code instead of this one's."""
    cand = Path(sys.executable).parent / "langgraph"
    if cand.exists():
        return [sys.executable, str(cand)]
    found = shutil.which("langgraph")
    if not found:
        raise AgentServerStartError(
            "the `langgraph` CLI is not installed: pip install -e '.[dev]' (langgraph-cli[inmem])")
    return [found]


@dataclass
class AgentServer(LoggedProcess):
    """A running ``langgraph dev`` process."""

    port: int
    url: str


def agent_server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the server: no tracing (said when the caller's turned it on), analytics or
    version check (nothing calls out)."""
    env = dict(os.environ)
    env.update(tracing_off(os.environ))
    env.update({
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "PYTHONUNBUFFERED": "1",
    })
    if extra:
        env.update(extra)
    return env


def _answers_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/ok", timeout=2) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _wait_ready(server: AgentServer, timeout: float) -> None:
    """Until GET /ok answers; an exit or a timeout stops the server and raises with its log's tail."""
    deadline = time.monotonic() + timeout
    while not _answers_ok(server.url):
        if server.process.poll() is not None:
            server.stop()
            raise AgentServerStartError(
                f"agent server exited with code {server.process.returncode} while starting; "
                f"last lines of {server.log_path.name}:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            server.stop()
            raise AgentServerStartError(
                f"agent server did not answer GET /ok within {timeout:.0f} s; "
                f"last lines of its log:\n{server.log_tail()}")
        time.sleep(0.25)


def _absolute_spec(spec: str, base: Path) -> str:
    """A graph or auth spec (`./path/file.py:name` or `module:name`) with a file path made absolute."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path.endswith(".py"):
        return spec
    return f"{(base / path).resolve()}:{name}"


def isolated_config(config_path: Path, state_dir: Path, graphs: dict[str, str] | None = None) -> Path:
    """A copy of ``config_path`` in ``state_dir`` with every path made absolute (``graphs`` replaces its
    graphs when given). ``langgraph dev`` keeps its state in ``.langgraph_api/`` of the folder it runs in,
    so a server run in ``state_dir`` shares nothing with another (tests run several at once)."""
    base = config_path.resolve().parent
    data = json.loads(config_path.read_text())
    data["graphs"] = {k: _absolute_spec(v, base) for k, v in (graphs or data.get("graphs", {})).items()}
    data["dependencies"] = [str((base / d).resolve()) if d.startswith(".") else d
                            for d in data.get("dependencies", [])]
    if isinstance(data.get("auth"), dict) and "path" in data["auth"]:
        data["auth"]["path"] = _absolute_spec(data["auth"]["path"], base)
    state_dir.mkdir(parents=True, exist_ok=True)
    copy = state_dir / "langgraph.json"
    copy.write_text(json.dumps(data, indent=1))
    return copy


def start_agent_server(port: int | None = None, *, config: Path | str = "langgraph.json",
                       cwd: Path | str = ROOT, host: str = "127.0.0.1", timeout: float = 120.0,
                       log_path: Path | str | None = None, env: dict[str, str] | None = None,
                       state_dir: Path | None = None) -> AgentServer:
    """Start ``langgraph dev`` on ``port`` (a free one if None) and wait for GET /ok.

    With ``state_dir`` the server runs there, on a copy of the config (see isolated_config), and keeps
    its state and log there instead of the project's ``.langgraph_api/``.
    Raises AgentServerStartError (with the exit code and the log's last lines) if
    it exits or does not answer within ``timeout`` seconds.
    """
    cwd = Path(cwd)
    port = port or free_port(host)
    ensure_port_free(port, host, who="the agent server")
    config_path = Path(config) if Path(config).is_absolute() else cwd / config
    if not config_path.exists():
        raise AgentServerStartError(f"agent server config {config_path.name} not found in {cwd}")
    if state_dir is not None:
        config_path, cwd = isolated_config(config_path, state_dir), state_dir
        log_path = log_path or state_dir / "agent-server.log"
    if log_path is None:
        log_path = Path(tempfile.mkdtemp(prefix="sitewalk-agent-")) / f"agent-server-{port}.log"
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(log_path, "wb")  # owned by the AgentServer, closed by stop()
    cmd = [*_langgraph_cmd(), "dev", "--no-browser", "--no-reload", "--host", host,
           "--port", str(port), "--config", str(config_path)]
    proc = subprocess.Popen(cmd, cwd=cwd, env=agent_server_env(env), stdin=subprocess.DEVNULL,
                            stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    server = AgentServer(proc, log_path, port, f"http://{host}:{port}", log_file=log_file)
    atexit.register(server.stop)  # never leave a server behind, even on an error exit
    _wait_ready(server, timeout)
    return server


__all__ = ["AgentServer", "agent_server_env", "isolated_config", "start_agent_server"]
