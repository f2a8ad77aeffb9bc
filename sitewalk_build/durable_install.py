"""What the durable server needs from the machine, and Aegra's own venv with the project in it.

Postgres comes from Debian's packages (`./sw serve --durable` installs them); Aegra needs Python
>= 3.12, found here (pyenv's, or SITEWALK_DURABLE_PYTHON, or one on PATH) and used to build
`.durable/aegra-venv/` once (again when the pins or the project's server deps change). It gets the
project's server deps and those of its `postgres` extra (the work-order ledger on Postgres).
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from sitewalk_build.durable_process import DurableError, tail
from sitewalk_build.paths import ROOT

__all__ = ["AEGRA", "DURABLE", "PROVIDERS_EXTRA", "VENV", "DurableError", "ensure_installed", "find_python", "log",
           "pg_bin", "pg_user", "venv_python"]

DURABLE = ROOT / ".durable"
VENV = DURABLE / "aegra-venv"
# Aegra 0.11 is the version the durable facts were checked with (see DESIGN.md).
AEGRA = "aegra-cli==0.11.0"
# Server deps of the project that are not for Aegra's venv: the in-memory server's CLI.
NOT_FOR_AEGRA = ("langgraph-cli",)
# Optional extras of the project the durable server needs: the work-order ledger on Postgres, and
# LangChain's provider packages (`SITEWALK_MODEL=openai:...`: a real chat model runs on Aegra too), and
# tracing (`SITEWALK_TRACES`, sitewalk_agent.tracing).
PROVIDERS_EXTRA = "providers"
AEGRA_EXTRAS = ("postgres", PROVIDERS_EXTRA, "tracing")


def log(msg: str) -> None:
    print(f"[durable] {msg}", file=sys.stderr, flush=True)


def _python_version(exe: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    major, minor = out.split()
    return int(major), int(minor)


def find_python() -> str:
    """A Python >= 3.12 for Aegra's venv: $SITEWALK_DURABLE_PYTHON, pyenv's, then PATH."""
    candidates = [os.environ.get("SITEWALK_DURABLE_PYTHON", "")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for minor in ("3.12", "3.13"):
        candidates += sorted(glob.glob(str(pyenv_root / "versions" / f"{minor}*" / "bin" / "python3")))
        candidates.append(shutil.which(f"python{minor}") or "")
    for exe in filter(None, candidates):
        version = _python_version(exe)
        if version and version >= (3, 12):
            return exe
    raise DurableError("Aegra needs Python >= 3.12 and none was found (pyenv install 3.12, or set "
                       "SITEWALK_DURABLE_PYTHON to one)")


def pg_bin() -> Path:
    """The directory of Debian's Postgres programs (the newest major version installed)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise DurableError("Postgres is not installed: `./sw serve --durable` installs it "
                       "(apt-get install postgresql)")


def pg_user() -> str | None:
    """Postgres refuses to run as root: then it runs as Debian's `postgres` user."""
    return "postgres" if os.geteuid() == 0 else None



def _server_deps() -> list[str]:
    """The project's server deps (less the in-memory server's CLI) and those of AEGRA_EXTRAS."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    extras = [d for name in AEGRA_EXTRAS for d in project["optional-dependencies"][name]]
    return [d for d in project["dependencies"] if not d.startswith(NOT_FOR_AEGRA)] + extras


def venv_python() -> Path:
    return VENV / "bin" / "python"


def _install_wanted(python: str) -> str:
    return hashlib.sha256(json.dumps([AEGRA, _server_deps(), python]).encode()).hexdigest()


def ensure_installed() -> float:
    """Build (or refresh) Aegra's venv; return the seconds it took (0 when already there).

    Under a lock: parallel test workers each start a stack, and only one may build the venv."""
    python = find_python()
    stamp = VENV / ".sitewalk-installed"
    want = _install_wanted(python)
    if _installed(stamp, want):
        return 0.0
    DURABLE.mkdir(parents=True, exist_ok=True)
    with open(DURABLE / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed(stamp, want):
            return 0.0  # another process installed it while this one waited
        return _install(python, stamp, want)


def _installed(stamp: Path, want: str) -> bool:
    return stamp.exists() and stamp.read_text() == want and venv_python().exists()


def _install(python: str, stamp: Path, want: str) -> float:
    started = time.monotonic()
    install_log = DURABLE / "aegra-install.log"
    log(f"installing Aegra into .durable/aegra-venv with {python} (log: {install_log.name})")
    pip = [str(venv_python()), "-m", "pip", "install", "--disable-pip-version-check"]
    steps = [
        [python, "-m", "venv", "--clear", str(VENV)],
        pip + [AEGRA, *_server_deps()],
        # Editable and without deps: the graph imports the working tree, and the in-memory
        # server's CLI (a project dependency) stays out of Aegra's venv.
        pip + ["--no-deps", "-e", str(ROOT)],
    ]
    with open(install_log, "wb") as out:
        for cmd in steps:
            if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT).returncode != 0:
                raise DurableError(f"installing Aegra failed; last lines of {install_log.name}:\n"
                                   f"{tail(install_log)}")
    stamp.write_text(want)
    return time.monotonic() - started

