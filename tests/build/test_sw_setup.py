"""`./sw serve`, `./sw build` and `./sw bench` on a machine without node: they install Debian's nodejs and npm
first (the build runs `npm pack` and Pyodide under node), or stop with one line naming what is missing.

Run on a copy of the real `sw` in a folder of its own, with a PATH that holds no node and no npm, stub
`apt-get`, `id` and `sudo` that record how they were called (nothing is installed on this machine, its
node is left alone), and a stub `.venv/bin/python` in place of the build (whose own answer without node
is tests/build/test_missing_node.py's).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What `sw` runs before it gets to node: bash itself (its `#!/usr/bin/env bash`) and coreutils; and what the
# stubs below use to put their programs in place.
TOOLS = ["bash", "cat", "cut", "dirname", "sha256sum", "chmod", "mkdir", "touch"]
APT_INSTALL = "install -y -q --no-install-recommends nodejs npm"


def script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


class Machine:
    """A checkout holding only `sw` and pyproject.toml, its venv in place, and a PATH without node."""

    def __init__(self, base: Path, *, uid: int = 0, apt: str | None = "installs", sudo: bool = False,
                 node: bool = False) -> None:
        self.root, self.bin, self.calls = base / "checkout", base / "bin", base / "calls.log"
        self.root.mkdir()
        self.bin.mkdir()
        shutil.copy2(ROOT / "sw", self.root / "sw")
        shutil.copy2(ROOT / "pyproject.toml", self.root / "pyproject.toml")
        venv = self.root / ".venv"
        (venv / "bin").mkdir(parents=True)
        (venv / ".sitewalk-installed").write_text(hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest())
        script(venv / "bin" / "python", f'echo "python $*" >> {self.calls}\n')
        for tool in TOOLS:
            found = shutil.which(tool)
            assert found, f"{tool} is needed to run sw"
            (self.bin / tool).symlink_to(found)
        script(self.bin / "id", f"echo {uid}\n")
        if sudo:
            script(self.bin / "sudo", f'echo "sudo $*" >> {self.calls}\nexec "$@"\n')
        if node:
            self.install_node()
        if apt is not None:  # "installs": puts a node and an npm on PATH; "does-nothing": exits 0 all the same
            put = f"for p in node npm; do printf '#!/bin/sh\\n' > {self.bin}/$p; chmod +x {self.bin}/$p; done\n"
            script(self.bin / "apt-get", f'echo "apt-get $*" >> {self.calls}\n'
                   + (f'[ "$1" = install ] && {{ {put} }}\n' if apt == "installs" else "") + "exit 0\n")

    def install_node(self) -> None:
        for program in ("node", "npm"):
            script(self.bin / program, "exit 0\n")

    def sw(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(self.bin), "HOME": str(self.root)}
        return subprocess.run([str(self.root / "sw"), *args], env=env, capture_output=True, text=True, timeout=60)

    def recorded(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []


@pytest.mark.parametrize("command", ["serve", "build", "bench"])
def test_a_command_that_builds_installs_nodejs_and_npm_first(tmp_path, command):
    machine = Machine(tmp_path)
    if command == "bench":  # bench also wants chromium: present here, so only node is asked for
        script(machine.bin / "chromium", "exit 0\n")
    done = machine.sw(command, "--help")
    assert done.returncode == 0, done.stderr
    assert machine.recorded() == ["apt-get update -q", f"apt-get {APT_INSTALL}", f"python build.py {command} --help"]


def test_a_user_who_is_not_root_installs_through_sudo(tmp_path):
    machine = Machine(tmp_path, uid=1000, sudo=True)
    done = machine.sw("build")
    assert done.returncode == 0, done.stderr
    assert machine.recorded() == ["sudo apt-get update -q", "apt-get update -q", f"sudo apt-get {APT_INSTALL}",
                                  f"apt-get {APT_INSTALL}", "python build.py build"]


def test_with_node_and_npm_present_nothing_is_installed(tmp_path):
    machine = Machine(tmp_path, node=True)
    done = machine.sw("serve")
    assert done.returncode == 0, done.stderr
    assert machine.recorded() == ["python build.py serve"]


@pytest.mark.parametrize(("kind", "says"), [
    ({"apt": None}, "missing: nodejs npm, and there is no apt-get here: install them with your system's "
                     "package manager (Debian: apt-get install nodejs npm)"),
    ({"uid": 1000}, "missing: nodejs npm: install them as root (apt-get install nodejs npm)"),
    ({"apt": "does-nothing"}, "node or npm still not found after installing Debian's nodejs and npm: "
                              "install them (apt-get install nodejs npm)"),
])
def test_where_node_cannot_be_installed_serve_stops_with_one_line_naming_it(tmp_path, kind, says):
    machine = Machine(tmp_path, **kind)
    done = machine.sw("serve")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == f"[sw] {says}"
    assert not any(call.startswith("python") for call in machine.recorded()), "the build ran without node"


def test_the_machine_s_own_path_is_not_used(tmp_path):
    """The control: the stub PATH really holds no node (else every test above would pass by finding it)."""
    machine = Machine(tmp_path)
    assert shutil.which("node", path=str(machine.bin)) is None and shutil.which("npm", path=str(machine.bin)) is None
    assert os.environ.get("PATH") != str(machine.bin)


def test_a_python_without_venv_gets_debian_s_python3_venv_before_the_venv_is_made(tmp_path):
    """A minimal Debian's python3 makes no venv without python3-venv (no ensurepip): it is installed first."""
    machine = Machine(tmp_path, node=True)
    shutil.rmtree(machine.root / ".venv")
    venv_ok = tmp_path / "python3-venv-installed"
    python = machine.root / ".venv" / "bin" / "python"
    script(machine.bin / "python3", f'''case "$1" in
  -c) [ -e {venv_ok} ] ;;
  -m) echo "python3 $*" >> {machine.calls}; mkdir -p {python.parent}
      printf '#!/bin/sh\\necho "python $*" >> {machine.calls}\\n' > {python}; chmod +x {python} ;;
esac
''')
    script(machine.bin / "apt-get", f'echo "apt-get $*" >> {machine.calls}\n[ "$1" = install ] && touch {venv_ok}\n'
                                    "exit 0\n")
    done = machine.sw("build")
    assert done.returncode == 0, done.stderr
    assert machine.recorded()[:3] == ["apt-get update -q",
                                      "apt-get install -y -q --no-install-recommends python3 python3-venv",
                                      f"python3 -m venv {machine.root / '.venv'}"]
    assert machine.recorded()[-1] == "python build.py build"
