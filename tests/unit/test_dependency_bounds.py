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
BOUNDED = {"langchain", "langchain-core", "langgraph", "langgraph-cli", "langgraph-api", "langgraph-runtime-inmem",
           "langchain-openai", "langchain-anthropic"}


def requirements(text: str) -> dict[str, Requirement]:
    """The project's dependencies and its provider extra, by name."""
    project = tomllib.loads(text)["project"]
    found = (Requirement(line) for line in [*project["dependencies"], *project["optional-dependencies"]["providers"]])
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


def test_each_provider_extra_and_dev_name_the_same_tested_range_as_providers():
    """`openai`, `anthropic` and `dev` repeat the ranges of `providers`: one range per package, whichever extra."""
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    providers = {Requirement(line).name: str(Requirement(line).specifier) for line in extras["providers"]}
    for extra in ("openai", "anthropic", "dev"):
        for line in extras[extra]:
            req = Requirement(line)
            if req.name in providers:
                assert str(req.specifier) == providers[req.name], (extra, line)
    assert {Requirement(line).name for line in extras["dev"]} >= providers.keys()


def test_aegras_venv_gets_the_provider_extra():
    from sitewalk_build.durable_install import _server_deps

    assert {Requirement(line).name for line in _server_deps()} >= {"langchain-openai", "langchain-anthropic"}
