"""LangChain, LangGraph and the agent server's packages have a tested range in pyproject.toml, and
what is installed is inside it: moving to another minor version is a deliberate edit of the bound
(with tests/unit/test_upstream_contract.py green), never a side effect of a fresh install.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
BOUNDED = {"langchain", "langchain-core", "langgraph", "langgraph-cli", "langgraph-api", "langgraph-runtime-inmem"}


def requirements(text: str) -> dict[str, Requirement]:
    """The project's dependencies by name."""
    found = (Requirement(line) for line in tomllib.loads(text)["project"]["dependencies"])
    return {req.name: req for req in found}


def range_problems(req: Requirement, installed: str) -> list[str]:
    """Why this requirement is not a tested range holding the installed version (empty when it is)."""
    problems = []
    uppers = [spec for spec in req.specifier if spec.operator == "<"]
    if not uppers:
        problems.append(f"{req.name}: no upper bound")
    elif any(Version(spec.version).release[:2] != _next_minor(Version(installed)) for spec in uppers):
        problems.append(f"{req.name}: the bound is not the next minor of {installed}")
    if not req.specifier.contains(installed, prereleases=True):
        problems.append(f"{req.name}: {installed} is installed, outside {req.specifier}")
    return problems


def _next_minor(v: Version) -> tuple[int, ...]:
    return (v.major, v.minor + 1)


@pytest.mark.parametrize(("line", "installed", "problem"), [
    ("langgraph", "1.2.24", "no upper bound"),
    ("langgraph>=1.2,<2", "1.2.24", "not the next minor"),
    ("langgraph>=1.2,<1.3", "1.3.0", "outside"),
    ("langgraph>=1.2.30,<1.3", "1.2.24", "outside"),
])
def test_the_check_refuses_an_open_a_loose_or_a_missed_range(line, installed, problem):
    assert any(problem in text for text in range_problems(Requirement(line), installed))


def test_the_check_accepts_the_next_minor_as_bound():
    assert range_problems(Requirement("langgraph-cli[inmem]>=0.4.40,<0.5"), "0.4.41") == []


def test_langchain_langgraph_and_the_servers_packages_are_installed_inside_their_tested_range():
    found = requirements(PYPROJECT.read_text(encoding="utf-8"))
    assert BOUNDED <= found.keys()
    assert [problem for name in sorted(BOUNDED) for problem in range_problems(found[name], version(name))] == []
