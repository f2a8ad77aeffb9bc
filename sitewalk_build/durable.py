"""The durable agent server: Aegra on Postgres (and Redis for two servers), started from the project.

`langgraph dev` keeps threads in memory; Aegra (PyPI `aegra-cli`) serves the same langgraph.json
graphs with the same Agent Server API on Postgres, so a killed server loses nothing. This module
owns that stack's lifecycle on one machine:

    with start_durable(workers=1) as server:     # or workers=2: Redis + a second server
        ...server.url...                          # http://127.0.0.1:<free port>

Everything lives under `.durable/` in the project (git-ignored), created on first use:
`aegra-venv/` (Aegra needs Python >= 3.12; the project is installed into it editable, so the
graph imports the working tree; its log `aegra-install.log`), and per stack (`home`, `.durable/`
itself for `serve`, a folder of their own for tests) `pg/` (a Postgres cluster from Debian's
packages, password in `pg-password`), `redis/` and `logs/`. Every part listens on 127.0.0.1 on a
free port; Aegra runs its own migrations at start. `stop()` (and Ctrl-C in `serve --durable`) stops
everything this module started; `check()` reports a part that died, with its log's last lines.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from sitewalk_build.durable_install import (
    DURABLE,
    DurableError,
    ensure_installed,
    find_python,
    log,
    pg_bin,
    pg_user,
    venv_python,
)
from sitewalk_build.durable_process import HOST, Part, http_ok, tail, tcp_ok, wait_ready
from sitewalk_build.no_tracing import tracing_off
from sitewalk_build.paths import ROOT
from sitewalk_build.ports import ensure_port_free, free_port

__all__ = ["DURABLE", "DurableError", "DurableServer", "Layout", "ensure_installed", "find_python", "pg_bin",
           "start_durable"]

PG_USER = "sitewalk"
DATABASE = "aegra"


@dataclass(frozen=True)
class Layout:
    """Where one stack keeps its state: `.durable/` for `serve`, a folder of their own for tests."""

    home: Path = DURABLE

    @property
    def pg(self) -> Path:
        return self.home / "pg"

    @property
    def pg_password(self) -> Path:
        return self.home / "pg-password"

    @property
    def redis(self) -> Path:
        return self.home / "redis"

    @property
    def logs(self) -> Path:
        return self.home / "logs"



def _pg_password(layout: Layout) -> str:
    if not layout.pg_password.exists():
        layout.home.mkdir(parents=True, exist_ok=True)
        layout.pg_password.touch(mode=0o600)
        layout.pg_password.write_text(secrets.token_urlsafe(24))
    return layout.pg_password.read_text().strip()


def ensure_cluster(layout: Layout) -> None:
    """initdb on first use: scram passwords, the project's own superuser, UTF-8."""
    if (layout.pg / "PG_VERSION").exists():
        return
    user = pg_user()
    layout.pg.mkdir(parents=True, exist_ok=True)
    pwfile = layout.home / "pg-initdb-pw"
    pwfile.write_text(_pg_password(layout))
    if user:  # the cluster and the one-off password file belong to the user Postgres runs as
        shutil.chown(layout.pg, user)
        shutil.chown(pwfile, user)
    layout.pg.chmod(0o700)
    try:
        cmd = [str(pg_bin() / "initdb"), "-D", str(layout.pg), "-U", PG_USER, f"--pwfile={pwfile}",
               "--auth=scram-sha-256", "-E", "UTF8", "--no-locale"]
        done = subprocess.run(cmd, capture_output=True, text=True, user=user)
    finally:
        pwfile.unlink()
    if done.returncode != 0:
        shutil.rmtree(layout.pg, ignore_errors=True)
        raise DurableError(f"initdb failed:\n{done.stdout}{done.stderr}")


def postgres_part(layout: Layout, port: int) -> Part:
    cmd = [str(pg_bin() / "postgres"), "-D", str(layout.pg), "-p", str(port),
           "-c", f"listen_addresses={HOST}", "-c", "unix_socket_directories="]
    # SIGINT is Postgres's fast shutdown (SIGTERM would wait for every client to leave).
    return Part("postgres", cmd, layout.logs / "postgres.log", user=pg_user(), stop_signal=signal.SIGINT)


def _psql(layout: Layout, port: int, sql: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PGPASSWORD": _pg_password(layout)}
    cmd = [str(pg_bin() / "psql"), "-h", HOST, "-p", str(port), "-U", PG_USER, "-d", "postgres", "-tAc", sql]
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def _ensure_database(layout: Layout, port: int) -> None:
    found = _psql(layout, port, f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'")
    if found.returncode == 0 and found.stdout.strip() == "1":
        return
    made = _psql(layout, port, f"CREATE DATABASE {DATABASE}")
    if made.returncode != 0:
        raise DurableError(f"creating the database failed: {found.stderr}{made.stderr}")


def start_postgres(layout: Layout) -> tuple[Part, str]:
    ensure_cluster(layout)
    port = free_port()
    part = postgres_part(layout, port)
    part.start()
    wait_ready(part, lambda: _psql(layout, port, "SELECT 1").returncode == 0, "Postgres connection", 60)
    _ensure_database(layout, port)
    return part, f"postgresql://{PG_USER}:{_pg_password(layout)}@{HOST}:{port}/{DATABASE}"


# ---------------------------------------------------------------------------
# Redis and Aegra
# ---------------------------------------------------------------------------


def start_redis(layout: Layout) -> tuple[Part, str]:
    exe = shutil.which("redis-server")
    if not exe:
        raise DurableError("redis-server is not installed: `./sw serve --durable` installs it "
                           "(apt-get install redis-server)")
    port = free_port()
    layout.redis.mkdir(parents=True, exist_ok=True)
    # Postgres holds everything durable; Redis only carries the run queue and stream events.
    cmd = [exe, "--bind", HOST, "--port", str(port), "--dir", str(layout.redis), "--save", "",
           "--appendonly", "no", "--protected-mode", "yes"]
    part = Part("redis", cmd, layout.logs / "redis.log")
    ensure_port_free(port, HOST, who="Redis")
    part.start()
    wait_ready(part, lambda: tcp_ok(port), "Redis port", 30)
    return part, f"redis://{HOST}:{port}/0"


@dataclass(frozen=True)
class AegraSettings:
    """What every Aegra server of a stack shares."""

    database_url: str
    redis_url: str | None = None
    config: Path = ROOT / "langgraph.json"
    extra_env: dict[str, str] | None = None


def aegra_env(settings: AegraSettings, port: int) -> dict[str, str]:
    """An Aegra server's environment: tracing off (said when the caller's turned it on), as agent_server_env."""
    env = dict(os.environ)
    env.update(tracing_off(os.environ))
    env.update({
        "AEGRA_CONFIG": str(settings.config),
        "DATABASE_URL": settings.database_url,
        "HOST": HOST,
        "PORT": str(port),
        "PYTHONUNBUFFERED": "1",
        "LOG_VERBOSITY": "standard",
        "REDIS_BROKER_ENABLED": "true" if settings.redis_url else "false",
    })
    if settings.redis_url:
        env["REDIS_URL"] = settings.redis_url
    env.update(settings.extra_env or {})
    return env


def aegra_part(layout: Layout, name: str, settings: AegraSettings, port: int | None = None) -> Part:
    port = port or free_port()
    # uvicorn directly (not `aegra serve`, which wraps it in a second process): a kill of this pid
    # is a kill of the server.
    cmd = [str(venv_python()), "-m", "uvicorn", "aegra_api.main:app", "--host", HOST, "--port", str(port)]
    return Part(name, cmd, layout.logs / f"{name}.log", env=aegra_env(settings, port))


def aegra_url(part: Part) -> str:
    assert part.env is not None
    return f"http://{HOST}:{part.env['PORT']}"


def start_aegra(part: Part, timeout: float = 120.0) -> None:
    assert part.env is not None
    ensure_port_free(int(part.env["PORT"]), HOST, who=part.name)
    part.start()
    wait_ready(part, lambda: http_ok(aegra_url(part) + "/health"), "answer on GET /health", timeout)


# ---------------------------------------------------------------------------
# The stack
# ---------------------------------------------------------------------------


@dataclass
class DurableServer:
    """The running stack. Quacks like build.AgentServer (url, alive, log_tail, stop) for `serve`."""

    database: Part
    servers: list[Part]
    redis: Part | None = None
    database_url: str = ""
    layout: Layout = field(default_factory=Layout)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return aegra_url(self.servers[0])

    @property
    def urls(self) -> list[str]:
        return [aegra_url(p) for p in self.servers]

    @property
    def log_path(self) -> Path:
        return self.servers[0].log_path

    def parts(self) -> list[Part]:
        return [self.database, *([self.redis] if self.redis else []), *self.servers]

    def alive(self) -> bool:
        return all(p.alive() for p in self.parts())

    @property
    def returncode(self) -> int | None:
        dead = [p.process.returncode for p in self.parts() if p.process is not None and not p.alive()]
        return dead[0] if dead else None

    def log_tail(self, lines: int = 30) -> str:
        """The dead parts' reports, or the first server's log while all are alive."""
        reports = [p.died() for p in self.parts() if p.died()]
        return "\n".join(reports) if reports else tail(self.servers[0].log_path, lines)

    def check(self) -> None:
        """Raise DurableError naming every part that died, with its log's last lines."""
        reports = [p.died() for p in self.parts() if p.died()]
        if reports:
            raise DurableError("\n".join(reports))

    def kill_server(self, index: int = 0) -> None:
        """kill -9 one Aegra server (the database stays): a crash, for fault tests."""
        self.servers[index].kill()

    def restart_server(self, index: int = 0, timeout: float = 120.0) -> None:
        """Start a stopped or killed server again on the same port and database."""
        part = self.servers[index]
        part.stop()
        start_aegra(part, timeout)

    def stop(self) -> None:
        """Stop everything, servers first, the database last."""
        for part in reversed(self.parts()):
            part.stop()

    def __enter__(self) -> DurableServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_durable(workers: int = 1, *, port: int | None = None, config: Path | str = "langgraph.json",
                  extra_env: dict[str, str] | None = None, home: Path = DURABLE,
                  timeout: float = 120.0) -> DurableServer:
    """Postgres, then (with workers >= 2) Redis, then `workers` Aegra servers on one database.

    Installs Aegra's venv and creates the cluster on first use. `extra_env` goes to the Aegra
    servers (e.g. SITEWALK_TOKENS); `port` is the first server's (a free one if None), `config` its
    langgraph.json (relative to the project); `home` is where the cluster, Redis's folder and the logs live.
    Whatever started is stopped again if a later part fails.
    """
    layout = Layout(home)
    timings = {"install_s": ensure_installed()}
    started = time.monotonic()
    database, database_url = start_postgres(layout)
    stack = DurableServer(database, [], database_url=database_url, layout=layout, timings=timings)
    atexit.register(stack.stop)  # never leave a part behind, even on an error exit
    try:
        redis_url = None
        if workers >= 2:
            stack.redis, redis_url = start_redis(layout)
        settings = AegraSettings(database_url, redis_url, ROOT / config, extra_env)
        for i in range(workers):
            part = aegra_part(layout, f"aegra-{i + 1}", settings, port if i == 0 else None)
            stack.servers.append(part)
            # One after the other: the first runs the migrations, the next finds them done.
            start_aegra(part, timeout)
    except BaseException:
        stack.stop()
        raise
    timings["start_s"] = time.monotonic() - started
    return stack


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """`python -m sitewalk_build.durable [workers]`: start the stack, print its URLs, wait for Ctrl-C."""
    workers = int((argv or sys.argv[1:] or ["1"])[0])
    signal.signal(signal.SIGTERM, _interrupt)  # stopped like Ctrl-C: every part goes with it
    try:
        stack = start_durable(workers)
    except DurableError as exc:
        log(str(exc))
        return 2
    log(f"up in {stack.timings['start_s']:.1f} s (install {stack.timings['install_s']:.1f} s): "
        f"{' '.join(stack.urls)}; Ctrl-C stops everything")
    try:
        while stack.alive():
            time.sleep(0.5)
        log(stack.log_tail())
        return 1
    except KeyboardInterrupt:
        log("stopping")
        return 0
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
