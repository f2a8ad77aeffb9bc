"""The browser app keeps no state in its modules: what the page holds lives on the one `App` that `main` builds.

A module global (a dict of "the current session", a status line made at import) is shared by everything
that imports the module, outlives the page's objects, and is invisible in any signature, so a test or a
second App cannot have its own. This test reads every module of `py_src/sitewalk/app/` (subpackages too)
with `ast` and fails on:

- a module-level binding other than a constant: an UPPER_CASE name bound to an immutable value (a literal,
  a tuple or frozenset of them, a read-only mapping proxy, another name), `__all__`, a type alias (a
  CapWords name bound to a type expression, or annotated `TypeAlias`), a TypeVar/ParamSpec/NewType, or a
  logger from `logging.getLogger`; augmented assignment (`X += ...`) at module level is never one;
- any `global` statement, and any `globals()` call;
- a module-level name changed inside a function: an item or attribute set on it, or a mutating method
  (`append`, `pop`, `update`, ...) called on it, where the function has no local of that name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "py_src" / "sitewalk" / "app"


CONSTANT_NAME = re.compile(r"_{0,2}[A-Z][A-Z0-9_]*")
TYPE_ALIAS_NAME = re.compile(r"_?[A-Z][a-z0-9]\w*")
LOGGER_NAMES = frozenset({"logger", "log", "_logger", "_log", "LOGGER", "LOG"})
IMMUTABLE_CALLS = frozenset({"frozenset", "tuple", "MappingProxyType", "types.MappingProxyType"})
TYPE_CALLS = frozenset({"TypeVar", "ParamSpec", "NewType", "typing.TypeVar", "typing.ParamSpec", "typing.NewType"})
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "add",
                              "discard", "setdefault", "sort", "reverse", "__setitem__", "__delitem__"})


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _immutable(node: ast.expr) -> bool:
    """A value no code can change in place: a literal, a tuple or frozenset of them, another name, arithmetic."""
    if isinstance(node, ast.Constant | ast.Name | ast.Attribute | ast.Lambda):
        return True
    if isinstance(node, ast.Tuple):
        return all(_immutable(e) for e in node.elts)
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        return all(_immutable(part) for part in ast.iter_child_nodes(node) if isinstance(part, ast.expr))
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Starred):  # `(*OTHER_CONSTANT, "more")`
        return _immutable(node.value)
    if isinstance(node, ast.Call) and _dotted(node.func) in IMMUTABLE_CALLS:
        return not node.keywords and all(_literal(arg) for arg in node.args)  # a copy of a literal: nobody else has it
    return False


def _literal(node: ast.expr) -> bool:
    """A literal whose parts are immutable (the argument a frozenset or a mapping proxy is made from)."""
    if isinstance(node, ast.List | ast.Set | ast.Tuple):
        return all(_immutable(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return all(k is not None and _immutable(k) and _immutable(v) for k, v in pairs)
    return _immutable(node)


def _type_expression(node: ast.expr) -> bool:
    """`Callable[[str], Awaitable[None]]`, `A | None`, `SomeClass`: what a type alias is bound to."""
    if isinstance(node, ast.Name | ast.Attribute):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) or node.value is None
    if isinstance(node, ast.Subscript):
        return _type_expression(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _type_expression(node.left) and _type_expression(node.right)
    return isinstance(node, ast.Call) and _dotted(node.func) in TYPE_CALLS


def _binding_problem(name: str, value: ast.expr | None, annotation: ast.expr | None) -> str | None:
    if value is None:
        return None  # a bare annotation binds nothing
    if name == "__all__":
        ok = isinstance(value, ast.List | ast.Tuple) and all(isinstance(e, ast.Constant) for e in value.elts)
        return None if ok else "__all__ is not a list of names"
    if annotation is not None and _dotted(annotation).endswith("TypeAlias"):
        return None
    if name in LOGGER_NAMES and isinstance(value, ast.Call) and _dotted(value.func).endswith("getLogger"):
        return None
    if isinstance(value, ast.Call) and _dotted(value.func) in TYPE_CALLS:
        return None
    if CONSTANT_NAME.fullmatch(name) and _immutable(value):
        return None
    if TYPE_ALIAS_NAME.fullmatch(name) and _type_expression(value):
        return None
    return f"module-level {name!r} is bound to {ast.unparse(value)[:60]!r}, which is not a constant"


def _targets(target: ast.expr, value: ast.expr | None) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """Each (target, value) of an assignment: `A, B = 1, 2` pairs them up; `a, b = f()` binds each to `f()`."""
    if isinstance(target, ast.Tuple | ast.List):
        values = value.elts if isinstance(value, ast.Tuple | ast.List) else None
        for i, part in enumerate(target.elts):
            yield from _targets(part, values[i] if values is not None and len(values) == len(target.elts) else value)
    else:
        yield target, value


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at import, through `if TYPE_CHECKING:` / `try:` blocks."""
    for stmt in body:
        if isinstance(stmt, ast.If | ast.Try):
            yield from _module_statements(stmt.body)
            yield from _module_statements(stmt.orelse)
            for handler in getattr(stmt, "handlers", []):
                yield from _module_statements(handler.body)
            yield from _module_statements(getattr(stmt, "finalbody", []))
        else:
            yield stmt


def _module_bindings(tree: ast.Module) -> tuple[set[str], list[str]]:
    """The names the module binds, and the problems among its bindings."""
    names: set[str] = set()
    problems: list[str] = []
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, ast.AugAssign):
            problems.append(f"line {stmt.lineno}: module-level {ast.unparse(stmt.target)!r} is changed in place")
            continue
        if isinstance(stmt, ast.Assign):
            pairs = [pair for target in stmt.targets for pair in _targets(target, stmt.value)]
            annotation = None
        elif isinstance(stmt, ast.AnnAssign):
            pairs, annotation = list(_targets(stmt.target, stmt.value)), stmt.annotation
        else:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                names.update((alias.asname or alias.name).split(".")[0] for alias in stmt.names)
            continue
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                problems.append(f"line {stmt.lineno}: module-level {ast.unparse(target)!r} is set at import")
                continue
            names.add(target.id)
            problem = _binding_problem(target.id, value, annotation)
            if problem:
                problems.append(f"line {stmt.lineno}: {problem}")
    return names, problems


def _function_locals(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a function binds itself (its parameters, anything it assigns): not the module's."""
    args = func.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node is not func:
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def _changes_in_functions(tree: ast.Module, module_names: set[str]) -> list[str]:
    """`global`, `globals()`, and a module-level name's item, attribute or contents changed inside a function."""
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            problems.append(f"line {node.lineno}: `global {', '.join(node.names)}`")
        elif isinstance(node, ast.Call) and _dotted(node.func) == "globals":
            problems.append(f"line {node.lineno}: globals() called")
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        shared = module_names - _function_locals(func)
        for node in ast.walk(func):
            changed: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                changed = [t for t in targets if isinstance(t, ast.Attribute | ast.Subscript)]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in MUTATING_METHODS):
                changed = [node.func.value]
            for target in changed:
                root = _innermost(target)
                if isinstance(root, ast.Name) and root.id in shared:
                    problems.append(f"line {getattr(node, 'lineno', '?')}: module-level {root.id!r} changed in a "
                                    f"function ({ast.unparse(target)[:60]})")
    return problems


def _innermost(node: ast.expr) -> ast.expr:
    """The expression a chain of `.attr` / `[key]` starts from (a call in the chain: not a module's name)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


def module_state(source: str) -> list[str]:
    """Every place in a module's source that keeps or changes state in the module (empty: none)."""
    tree = ast.parse(source)
    names, problems = _module_bindings(tree)
    return problems + _changes_in_functions(tree, names)


def _app_modules() -> list[Path]:
    return sorted(APP.rglob("*.py"))


# --- the checker, proven on made-up modules first -----------------------------------------------------------

@pytest.mark.parametrize("source", [
    "_current: dict[str, object] = {}\n",
    "_seen = []\n",
    "_ids = set()\n",
    "_status_line = StatusLine()\n",
    "COUNTS = {'a': 1}\n",
    "NAMES = ['a', 'b']\n",
    "COUNT = 0\nCOUNT += 1\n",
    "_opened = None\ndef open_it(x):\n    global _opened\n    _opened = x\n",
    "def f():\n    globals()['x'] = 1\n",
    "from .x import REGISTRY\ndef add(k):\n    REGISTRY[k] = 1\n",
    "import state\ndef f(v):\n    state.current = v\n",
    "from .x import SEEN\ndef f(v):\n    SEEN.append(v)\n",
    "a, b = [], {}\n",
    "class A:\n    pass\nA.count = 0\n",
])
def test_the_checker_finds_state_in_a_module(source: str) -> None:
    assert module_state(source), source


@pytest.mark.parametrize("source", [
    '"""doc."""\nfrom __future__ import annotations\n',
    "PANEL = 'sw-stuck'\nTIMEOUT_S = 300.0\nALLOW, DECLINE = 'allow', 'decline'\n",
    "KINDS = ('a', 'b')\nWORDS = frozenset({'a', 'b'})\nMORE = (*KINDS, 'c')\n",
    "from types import MappingProxyType\nFIELDS = MappingProxyType({'lat': 'sw-lat'})\n",
    "__all__ = ['main', 'App']\n",
    "from collections.abc import Callable\nAnswer = Callable[[str, object], None]\nMaybe = int | None\n",
    "from typing import TypeVar\nT = TypeVar('T')\n",
    "import logging\nlogger = logging.getLogger(__name__)\n",
    "from .x import KEY as SEEN_KEY\nOTHER = SEEN_KEY\n",
    "class App:\n    def __init__(self):\n        self.items = []\n"
    "    def add(self, x):\n        self.items.append(x)\n",
    "def f(node):\n    node.hidden = True\n    seen = {}\n    seen['a'] = 1\n",
    "from . import dom\ndef f():\n    dom.element('x').value = ''\n",
    "if TYPE_CHECKING:\n    from .x import Y\n",
])
def test_the_checker_passes_constants_and_state_kept_on_objects(source: str) -> None:
    assert module_state(source) == [], source


def test_the_checker_reads_every_module_of_the_app_and_its_subpackages() -> None:
    modules = _app_modules()
    assert APP / "__init__.py" in modules and APP / "sessions.py" in modules
    assert all(path.is_relative_to(APP) for path in modules)


# --- the app -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", _app_modules(), ids=lambda p: str(p.relative_to(APP)))
def test_no_module_of_the_app_keeps_state(path: Path) -> None:
    assert module_state(path.read_text()) == [], f"{path.relative_to(APP)} keeps state in the module"
