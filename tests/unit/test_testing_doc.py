"""docs/testing.md names the test helpers a newcomer writes with; the names must be real, and a fixture
added to a conftest must be in it.

Checked from the sources (their AST; nothing of the browser side is imported): every fixture the
conftests of tests/, tests/e2e and tests/durable define is named in the doc; every `app.NAME`,
`watch.NAME` and `durable_server.NAME` it names is a member of `AppPage`, `BrowserWatch` or
`DurableServer`; every `name(...)` it writes as a call is defined in the project (a `helpers.name(...)`
in that helper module); every name a bullet lists under a helper file (`- \\`file.py\\`: ...`) is in that
file; and every `SITEWALK_*` variable it names is read by the code.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from test_config_reference import ENV_VAR, env_vars

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "testing.md"
CONFTESTS = [ROOT / "tests" / "conftest.py", ROOT / "tests" / "e2e" / "conftest.py",
             ROOT / "tests" / "durable" / "conftest.py"]
MEMBERS_OF = {  # the object a doc's `prefix.member` is, by the name the tests give it
    "app": (ROOT / "tests" / "e2e" / "conftest.py", "AppPage"),
    "watch": (ROOT / "tests" / "e2e" / "conftest_helpers.py", "BrowserWatch"),
    "durable_server": (ROOT / "sitewalk_build" / "durable.py", "DurableServer"),
}
DEFINITION_ROOTS = [ROOT / "tests", ROOT / "py_src", ROOT / "sitewalk_build", ROOT / "build.py"]
# Calls the doc writes that are not the project's (the standard library's, pytest's).
FOREIGN_MODULES = {"asyncio", "pytest"}

CODE = re.compile(r"`([^`\n]+)`")
MEMBER = re.compile(r"^(\w+)\.(\w+)")
CALL = re.compile(r"^(?:(\w+)\.)?(\w+)\(")
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
HELPER_BULLET = re.compile(r"^- `([\w/]+\.py)`: (.*?)(?=^\S|^- |\Z)", re.S | re.M)


def code_spans(text: str) -> list[str]:
    return CODE.findall(text)


def leading_names(text: str) -> set[str]:
    """The name each code span starts with (`app_for(url)` names `app_for`)."""
    return {m[0] for m in (re.match(r"\w+", span) for span in code_spans(text)) if m}


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def fixtures(path: Path) -> set[str]:
    """The functions of a conftest decorated with `pytest.fixture` (called or not)."""
    found = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Attribute) and target.attr == "fixture":
                    found.add(node.name)
    return found


def members(path: Path, class_name: str) -> set[str]:
    """A class's methods and properties, and the attributes its methods set on `self`."""
    cls = next(n for n in ast.walk(tree(path)) if isinstance(n, ast.ClassDef) and n.name == class_name)
    names = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    names |= {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute)
              and isinstance(n.value, ast.Name) and n.value.id == "self" and isinstance(n.ctx, ast.Store)}
    return names


def names_in(path: Path) -> set[str]:
    """Every name a module defines or imports (functions, classes, assigned names, imported names)."""
    found = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


@cache
def project_definitions() -> dict[str, set[str]]:
    """Each function or class name defined in the project's Python files, with the stems of those files."""
    found: dict[str, set[str]] = {}
    for top in DEFINITION_ROOTS:
        files = [top] if top.is_file() else [p for p in top.rglob("*.py") if "node_modules" not in p.parts]
        for path in files:
            for node in ast.walk(tree(path)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.setdefault(node.name, set()).add(path.stem)
    return found


def unknown_members(text: str) -> list[str]:
    wrong = []
    for span in code_spans(text):
        member = MEMBER.match(span)
        if member and member[1] in MEMBERS_OF and member[2] not in members(*MEMBERS_OF[member[1]]):
            wrong.append(span)
    return wrong


def unknown_calls(text: str) -> list[str]:
    wrong = []
    for span in code_spans(text):
        call = CALL.match(span)
        if not call or call[1] in FOREIGN_MODULES or call[1] in MEMBERS_OF:
            continue
        stems = project_definitions().get(call[2], set())
        if not stems or (call[1] is not None and call[1] not in stems):
            wrong.append(span)
    return wrong


def unknown_bullet_names(text: str) -> list[str]:
    wrong = []
    for path, bullet in HELPER_BULLET.findall(text):
        source = ROOT / path if (ROOT / path).is_file() else ROOT / "tests" / "unit" / path
        assert source.is_file(), f"a helper bullet names {path}, which is not there"
        defined = names_in(source)
        wrong += [f"{path}: {name}" for name in code_spans(bullet) if IDENTIFIER.match(name) and name not in defined]
    return wrong


# --- the doc ------------------------------------------------------------------------------------


def test_every_fixture_of_the_conftests_is_named():
    defined = set().union(*(fixtures(path) for path in CONFTESTS))
    assert {"agent_server", "site", "app", "watch", "durable_server"} <= defined  # the reader finds them
    assert defined - leading_names(DOC.read_text(encoding="utf-8")) == set(), "fixtures testing.md leaves out"


def test_the_members_it_names_exist():
    text = DOC.read_text(encoding="utf-8")
    assert {"app.begin(id, note)", "watch.allow(url)", "durable_server.kill_server()"} <= set(code_spans(text))
    assert unknown_members(text) == []


def test_the_calls_it_writes_are_defined():
    text = DOC.read_text(encoding="utf-8")
    assert "conftest_helpers.poll(page, \"js expression\")" in code_spans(text)
    assert unknown_calls(text) == []


def test_the_names_a_helper_bullet_lists_are_in_its_file():
    text = DOC.read_text(encoding="utf-8")
    assert HELPER_BULLET.findall(text), "testing.md has no bullet of helper files any more"
    assert unknown_bullet_names(text) == []


def test_every_environment_variable_it_names_is_read():
    named = set(ENV_VAR.findall(DOC.read_text(encoding="utf-8")))
    assert {"SITEWALK_TEST_WORKERS", "SITEWALK_BROWSER_SLOTS", "SITEWALK_SERVER"} <= named
    assert named - env_vars() == set()


# --- negative controls --------------------------------------------------------------------------


def test_stale_names_are_caught():
    text = ("- `sessions_for_tests.py`: `thread_server`, `session_of`\n\n`app.begin(id)`, `app.press_all()`, "
            "`watch.allow(url)`, `durable_server.reboot()`, `start_test_stack()`, `start_stack(name)`, "
            "`conftest_helpers.poll(page, x)`, `conftest_helpers.wait_until(x)`, `asyncio.run(x)`\n")
    assert unknown_members(text) == ["app.press_all()", "durable_server.reboot()"]
    assert unknown_calls(text) == ["start_stack(name)", "conftest_helpers.wait_until(x)"]
    assert unknown_bullet_names(text) == ["sessions_for_tests.py: session_of"]


def test_a_fixture_left_out_is_caught():
    text = DOC.read_text(encoding="utf-8").replace("`another_device(url)`", "another device")
    defined = set().union(*(fixtures(path) for path in CONFTESTS))
    assert defined - leading_names(text) == {"another_device"}
