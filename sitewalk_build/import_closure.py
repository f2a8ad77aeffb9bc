"""Which stdlib modules the app imports, found by importing it; runs INSIDE Pyodide (under node).

stdlib_split.py hands this file's text to Pyodide's ``runPython`` (through pyc_driver.mjs), then
calls ``run(job_path)``. The job names archives on sys.path (the host is mounted at /host), wheels
to unpack, and root packages: the app, its dependencies, and Pyodide's own Python side (which the
boot calls into: loading packages, the event loop). Every module of every root is imported; every
``import`` statement in their sources (also inside functions, which run only later) is imported
too, and so is every codec their sources name (``.decode("unicode-escape")``, ``encoding="latin-1"``):
the codec registry imports ``encodings.<name>`` only when the codec is first used. The stdlib modules
then in ``sys.modules`` are the boot archive; the rest is fetched on demand.
A module that fails to import here (it needs a page, a missing optional dependency) is skipped:
what it imported before failing is counted, and the AST pass reaches what came after.
It imports nothing of the build tooling.
"""

from __future__ import annotations

import ast
import codecs
import importlib
import json
import os
import pkgutil
import sys
import tempfile
import zipfile

STDLIB = os.path.dirname(os.__file__)  # /lib/python314.zip in Pyodide


def _try_import(name: str) -> object:
    try:
        return importlib.import_module(name)
    except BaseException:  # noqa: B036 - a module that cannot run here (SystemExit included) is skipped
        return None


def _modules_of(root: str) -> list[str]:
    """The root and every module below it (those that import)."""
    package = _try_import(root)
    names = [root]
    path = getattr(package, "__path__", None)
    if path is not None:
        for info in pkgutil.walk_packages(path, root + ".", onerror=lambda _: None):
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


def _codecs_named(tree: ast.AST) -> set[str]:
    """String constants a source passes as a codec: ``x.decode("name")``, ``encoding="name"``."""
    found: set[str] = set()
    for node in ast.walk(tree):
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


def _imported_names(tree: ast.AST) -> set[str]:
    """Absolute module names a source imports anywhere (functions included)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _stdlib_entry(module: object) -> str | None:
    """The module's file inside the stdlib archive, relative to it, or None when it is not from there."""
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
    return origin[len(STDLIB) + 1:] if origin.startswith(STDLIB + "/") else None


def run(job_path: str) -> None:
    with open(job_path) as fh:
        job = json.load(fh)
    unpacked = tempfile.mkdtemp(prefix="sitewalk-closure-")  # in Pyodide's in-memory file system
    for wheel in job["unpack"]:
        with zipfile.ZipFile("/host" + wheel) as zf:
            zf.extractall(unpacked)
    sys.path[:0] = [unpacked] + ["/host" + p for p in job["path"]]
    importlib.invalidate_caches()
    modules = [m for root in job["roots"] for m in _modules_of(root)]
    for name in modules:
        _try_import(name)
    for name in modules:
        tree = _tree(name)
        if tree is None:
            continue
        for imported in sorted(_imported_names(tree)):
            _try_import(imported)
        for codec in sorted(_codecs_named(tree)):
            _lookup(codec)
    entries = sorted({e for m in list(sys.modules.values()) if (e := _stdlib_entry(m))})
    with open(job_path + ".out", "w") as fh:
        json.dump({"entries": entries}, fh)
