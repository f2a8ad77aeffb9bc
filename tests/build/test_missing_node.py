"""The build on a machine without node or npm: one line naming the program and how to install it.

`./sw serve`, `./sw build` and `./sw bench` install Debian's nodejs and npm first (tests/build/test_sw_setup.py);
someone running build.py directly without them gets sitewalk_build.tools.MissingToolError, said in one
line with a non-zero exit, never a FileNotFoundError's traceback. Run with a PATH that holds no node
and no npm (the machine's own node is left alone).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitewalk_build import bundle as bundle_mod  # noqa: E402
from sitewalk_build.digests import run  # noqa: E402
from sitewalk_build.errors import BuildError  # noqa: E402
from sitewalk_build.fetch import fetch_pyodide  # noqa: E402
from sitewalk_build.tools import INSTALL_HINT, MissingToolError  # noqa: E402


def bare_path(tmp_path: Path, *programs: str) -> str:
    """A PATH of one folder holding links to only ``programs`` (absolute paths of this machine's)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for program in programs:
        (bin_dir / Path(program).name).symlink_to(program)
    return str(bin_dir)


def build_py(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=bare_path(tmp_path))
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args, "--dist", str(tmp_path / "dist")],
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", [["build", "--force"], ["serve", "--port", "0"]])
def test_build_py_without_node_says_so_in_one_line(tmp_path, command):
    done = build_py(tmp_path, *command)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "FileNotFoundError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"[sitewalk] build failed: node not found on PATH: the build needs it to run Pyodide "
                     f"at build time ({INSTALL_HINT})"]
    assert not (tmp_path / "dist").exists()


def test_fetching_pyodide_without_npm_names_npm(tmp_path, monkeypatch):
    """A machine with node but no npm (and nothing cached) stops before downloading, naming npm."""
    monkeypatch.setenv("PATH", bare_path(tmp_path))
    with pytest.raises(MissingToolError) as caught:
        fetch_pyodide(bundle_mod.load_bundle(), cache=tmp_path / "cache")
    assert caught.value.program == "npm"
    assert "npm not found on PATH" in str(caught.value) and "apt-get install nodejs npm" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_program_that_cannot_be_started_is_a_build_error(tmp_path):
    """The safety net under every command the build runs: no FileNotFoundError leaves run()."""
    with pytest.raises(BuildError, match="could not run .*no-such-program"):
        run([str(tmp_path / "no-such-program"), "--version"])
