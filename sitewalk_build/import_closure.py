"""Which stdlib and pure-package modules the app imports, found by importing it; runs INSIDE Pyodide (under node).

stdlib_split.py hands this file's text to Pyodide's ``runPython`` (through pyc_driver.mjs), then
calls ``run(job_path)``. Before that the driver has done what boot.js does before the app runs:
started Pyodide, installed the wheels with its loadPackage and unpacked the pure packages' metadata
with its unpackArchive; whatever Pyodide's Python side imported for that is in ``sys.modules``
already. The job names archives on sys.path (the host is mounted at /host; one of them is the pure
packages' archive, ``site``) and root packages: the app (and the finder the boot archive carries).
Every module of every root is imported. Then every ``import`` statement in the source of every module
loaded from outside the stdlib (the roots, and the dependencies they reached: pydantic, jinja2...)
is imported too, transitively, also inside functions (which run only later; not under
``if TYPE_CHECKING:``, which never runs), and so is every codec
those sources name (``.decode("unicode-escape")``, ``encoding="latin-1"``): the codec registry
imports ``encodings.<name>`` only when the codec is first used. The stdlib modules then in
``sys.modules`` are the stdlib's boot archive, the modules loaded from ``site`` the pure packages'
boot archive; the rest of each is fetched on demand. What no import reaches (pydantic.v1, its mypy
plugin, micropip when the app never imports it) stays out of the boot.
The job may name modules (``not_at_boot``) whose import the AST pass leaves alone: a function-level
import the app never reaches (pydantic imports pydantic.v1 only to recognise a V1 model); if an
import does reach one, it comes from the rest archive.
A module that fails to import here (it needs a page, a missing optional dependency) is skipped:
what it imported before failing is counted, and the AST pass reaches what came after.
It imports nothing of the build tooling.
"""

from __future__ import annotations

import ast
import codecs
import importlib
import importlib.util
import json
import os
import pkgutil
import sys
from collections.abc import Iterator

STDLIB = os.path.dirname(os.__file__)  # /lib/python314.zip in Pyodide


def _try_import(name: str) -> object:
    try:
        return importlib.import_module(name)
    except BaseException:  # noqa: B036 - a module that cannot run here (SystemExit included) is skipped
        return None


def _modules_of(root: str) -> list[str]:
    """The root and every module below it (those that import), but a package's ``__main__``: a command
    line (``python -m``) that no import of the app runs."""
    package = _try_import(root)
    names = [root]
    path = getattr(package, "__path__", None)
    if path is not None:
        for info in pkgutil.walk_packages(path, root + ".", onerror=lambda _: None):
            if info.name.rpartition(".")[2] != "__main__":
                names.append(info.name)
    return names


CODEC_CALLS = {"encode", "decode", "lookup", "getencoder", "getdecoder", "getincrementalencoder",
               "getincrementaldecoder", "getreader", "getwriter", "iterencode", "iterdecode"}


def _tree(name: str) -> ast.AST | None:
    module = sys.modules.get(name)
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    try:
        source = loader.get_source(name) if loader is not None else None
        return ast.parse(source or "")
    except Exception:
        return None


def _run_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of the source but those under ``if TYPE_CHECKING:``, which only type checkers read
    (pydantic's ``__init__`` imports every submodule there; at run time it imports them on demand)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (any module's name for it)."""
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def _codecs_named(tree: ast.AST) -> set[str]:
    """String constants a source passes as a codec: ``x.decode("name")``, ``encoding="name"``."""
    found: set[str] = set()
    for node in _run_nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        args = node.args[:1] if called in CODEC_CALLS else []
        args += [k.value for k in node.keywords if k.arg == "encoding"]
        found.update(a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return found


def _lookup(codec: str) -> None:
    try:
        codecs.lookup(codec)
    except Exception:
        pass  # not a codec after all (str.encode's first argument always is one; lookup's may not be)


def _imported_names(tree: ast.AST, package: str) -> set[str]:
    """Absolute module names a source imports anywhere (functions included); ``package`` resolves the
    relative ones (``from ._internal import _fields`` in pydantic)."""
    found: set[str] = set()
    for node in _run_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base:
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    if not node.level:
        return node.module
    try:
        return importlib.util.resolve_name("." * node.level + (node.module or ""), package)
    except (ImportError, ValueError):
        return None


def _entry(module: object, archive: str) -> str | None:
    """The module's file inside the archive (a path), relative to it, or None when it is not from there."""
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
    return origin[len(archive) + 1:] if origin.startswith(archive + "/") else None


def _follow(names: list[str], skip: tuple[str, ...]) -> None:
    """Import what the sources of these modules import, and on through every module so loaded that is
    not the stdlib's (a dependency's function-level import runs when the app calls it); not the
    modules ``skip`` names, nor those below them."""
    todo, seen, known = list(names), set(), 0
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = _tree(name)
        if tree is not None:
            package = getattr(sys.modules.get(name), "__package__", None) or name
            for imported in sorted(_imported_names(tree, package)):
                if not (imported in skip or imported.startswith(tuple(m + "." for m in skip))):
                    _try_import(imported)
            for codec in sorted(_codecs_named(tree)):
                _lookup(codec)
        if len(sys.modules) != known:  # something new was loaded: follow it too
            known = len(sys.modules)
            todo += [m for m, module in list(sys.modules.items())
                     if m not in seen and _entry(module, STDLIB) is None and getattr(module, "__file__", None)]


def _forget_own_imports() -> None:
    """Modules this file imported for its own work (pkgutil...) leave ``sys.modules`` (its names keep
    them working): one counts when the app's imports load it again, not because the closure run
    needed it. The driver sets PRELOADED: what was imported before this file ran."""
    preloaded = set(globals().get("PRELOADED") or sys.modules)
    for name in [m for m in sys.modules if m not in preloaded]:
        del sys.modules[name]


def run(job_path: str) -> None:
    with open(job_path) as fh:
        job = json.load(fh)
    _forget_own_imports()
    sys.path[:0] = ["/host" + p for p in job["path"]]
    importlib.invalidate_caches()
    modules = [m for root in job["roots"] for m in _modules_of(root)]
    for name in modules:
        _try_import(name)
    _follow(modules, tuple(job.get("not_at_boot", [])))
    loaded = list(sys.modules.values())
    site = "/host" + job["site"]
    out = {"entries": sorted({e for m in loaded if (e := _entry(m, STDLIB))}),
           "site": sorted({e for m in loaded if (e := _entry(m, site))})}
    with open(job_path + ".out", "w") as fh:
        json.dump(out, fh)
