"""One name, one error: no two exception classes of the project share a name.

The build's "the agent server did not start" (`sitewalk_build.errors.AgentServerStartError`) and the
client's "a running server answered with an error" (`sitewalk.agentserver.AgentServerError`) were
both called `AgentServerError`; a reader (or an `except`) could take one for the other.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "py_src", ROOT / "sitewalk_build"]


def exception_classes(roots: list[Path]) -> dict[str, list[str]]:
    """Class name -> the files defining it, for classes named like errors (`...Error`)."""
    found: dict[str, list[str]] = defaultdict(list)
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                    found[node.name].append(path.relative_to(root.parent).as_posix())
    return found


def test_the_check_sees_a_name_defined_twice(tmp_path):
    for package in ("one", "two"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "errors.py").write_text("class AgentServerError(Exception):\n    pass\n")
    assert len(exception_classes([tmp_path / "one", tmp_path / "two"])["AgentServerError"]) == 2


def test_no_two_error_classes_of_the_project_share_a_name():
    found = exception_classes(SOURCES)
    assert found["AgentServerError"] == ["py_src/sitewalk/base/server_errors.py"]
    assert found["AgentServerStartError"] == ["sitewalk_build/errors.py"]
    assert {name: files for name, files in found.items() if len(files) > 1} == {}
