"""The server's install carries the agent and the shared models only: no browser code, no jinja2.

`pip install .` (and langgraph.json's "dependencies": ["."]) installs the root pyproject's
distribution; the browser package ships in build.py's wheel instead (tests/build).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
REFUSED = ("sitewalk", "jinja2")  # the browser package and its template engine


def build_server_wheel(out: Path) -> Path:
    """The root project's wheel, built from a copy of its sources (no build/ or egg-info in the tree),
    with the venv's setuptools (no build isolation: offline)."""
    src = out / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "py_src", src / "py_src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-q", "-w", str(out), str(src)], check=True, timeout=300)
    (wheel,) = out.glob("*.whl")
    return wheel


def test_the_server_wheel_holds_the_agent_and_the_shared_models_and_requires_no_jinja2(tmp_path):
    with zipfile.ZipFile(build_server_wheel(tmp_path)) as whl:
        names = whl.namelist()
        metadata = Parser().parsestr(whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
    tops = {name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"sitewalk_agent", "sitewalk_shared"}
    assert "sitewalk_shared/contracts/tools.py" in names and "sitewalk_shared/ui_spec/model.py" in names
    assert not any(name.startswith("sitewalk/") for name in names)
    requires = [Requirement(line) for line in metadata.get_all("Requires-Dist", [])]
    installed = [req for req in requires if req.marker is None]  # what `pip install .` brings
    assert {"langgraph", "pydantic"} <= {req.name for req in installed}
    assert "jinja2" not in {req.name.lower() for req in installed}
    # jinja2 only for the CPython tests of the browser package
    assert [str(req.marker) for req in requires if req.name.lower() == "jinja2"] == ['extra == "dev"']


# Imports each module named, with a finder in front that refuses the browser package and jinja2; the
# refusal itself is checked first, so a hook that stopped refusing could not let the test pass.
IMPORT_REFUSING = textwrap.dedent("""
    import importlib, importlib.abc, json, sys

    REFUSED, MODULES = json.loads(sys.argv[1]), json.loads(sys.argv[2])

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in REFUSED:
                raise ImportError(f"refused: {name}")
            return None

    sys.meta_path.insert(0, Refuse())
    for name in REFUSED:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
        else:
            raise SystemExit(f"{name} was not refused")
    for name in MODULES:
        importlib.import_module(name)
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in REFUSED + ["sitewalk_shared"])))
""")


def server_modules() -> list[str]:
    """The modules langgraph.json loads (its graphs and its auth), and the agent kit."""
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    paths = [ref.split(":", 1)[0] for ref in config["graphs"].values()]
    modules = [path.removeprefix("./py_src/").removesuffix(".py").replace("/", ".") for path in paths]
    return modules + [config["auth"]["path"].split(":", 1)[0], "sitewalk_agent.toolkit"]


def test_the_server_graphs_import_without_the_browser_package_or_jinja2(tmp_path):
    modules = server_modules()
    assert {"sitewalk_agent.graph", "sitewalk_agent.example", "sitewalk_agent.whoami", "sitewalk_agent.auth"} <= set(
        modules)
    done = subprocess.run([sys.executable, "-c", IMPORT_REFUSING, json.dumps(list(REFUSED)), json.dumps(modules)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "sitewalk_shared.contracts" in loaded  # the agent did import the shared models
    assert not [name for name in loaded if name.split(".")[0] in REFUSED]
