"""Compile the Python files of zip archives to bytecode; runs INSIDE Pyodide (under node), not in the build's Python.

precompile.py hands this file's text to Pyodide's ``runPython`` (see pyc_driver.mjs), then calls
``run(job_path)``. The job lists archives (paths on the host, mounted at /host); each is rewritten
with unchecked-hash .pyc files made by the bundle's own Python, so they match its magic number.
It imports nothing of the build tooling: only the standard library of the Python it runs in.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib._bootstrap_external as be
import importlib.util
import json
import os
import sys
import zipfile

TAG = sys.implementation.cache_tag
EPOCH = (1980, 1, 1, 0, 0, 0)
Entry = tuple[str, zipfile.ZipInfo, bytes]


def _without_docstrings_but_classes(source: bytes, filename: str) -> ast.Module:
    """The module's tree without the docstrings of the module and of its functions: nothing reads them
    at run time, but pydantic reads a class's (a model's description). A command line's module
    (``__main__``) keeps its own: it prints it as help. Line numbers are unchanged."""
    tree = ast.parse(source, filename)
    owners: list[ast.Module | ast.FunctionDef | ast.AsyncFunctionDef] = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not filename.endswith("/__main__.py"):
        owners.append(tree)
    for node in owners:
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = node.body[1:] or [ast.Pass(lineno=first.lineno, col_offset=first.col_offset)]
    return ast.fix_missing_locations(tree)


def _pyc(source: bytes, filename: str, optimize: int, class_docstrings_only: bool) -> bytes:
    tree = _without_docstrings_but_classes(source, filename) if class_docstrings_only else source
    code = compile(tree, filename, "exec", dont_inherit=True, optimize=optimize)
    return bytes(be._code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))  # type: ignore[attr-defined]


def _pyc_name(name: str, keep_source: bool) -> str:
    """Beside its source in __pycache__ when the source stays; in the source's place otherwise."""
    if not keep_source:
        return name + "c"
    d, base = os.path.split(name)
    return (d + "/" if d else "") + "__pycache__/" + base[:-3] + "." + TAG + ".pyc"


def _compiled(zin: zipfile.ZipFile, location: str, keep_source: bool, optimize: int, class_docstrings_only: bool,
              record: str | None, failed: list[str]) -> list[Entry]:
    """The archive's entries but its RECORD, .py files compiled (a file that does not compile stays source)."""
    out: list[Entry] = []
    for info in zin.infolist():
        name, data = info.filename, zin.read(info.filename)
        if not name.endswith(".py") or info.is_dir():
            if name != record:
                out.append((name, info, data))
            continue
        try:
            pyc = _pyc(data, location.rstrip("/") + "/" + name, optimize, class_docstrings_only)
        except (SyntaxError, ValueError) as exc:
            failed.append(name + ": " + str(exc))
            out.append((name, info, data))
            continue
        if keep_source:
            out.append((name, info, data))
        out.append((_pyc_name(name, keep_source), info, pyc))
    return out


def _record_row(name: str, data: bytes) -> str:
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return name + ",sha256=" + h + "," + str(len(data))


def _write(dst: str, entries: list[Entry], record: str | None) -> None:
    """Write the entries, stored (HTTP compresses the whole archive better), and a RECORD that lists
    them (the installed files changed)."""
    rows = []
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for name, info, data in entries:
            zi = zipfile.ZipInfo(name, info.date_time)
            zi.external_attr = info.external_attr or (0o644 << 16)
            zi.compress_type = zipfile.ZIP_STORED
            zout.writestr(zi, data)
            if not name.endswith("/"):
                rows.append(_record_row(name, data))
        if record:
            zi = zipfile.ZipInfo(record, EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_STORED
            zout.writestr(zi, "\n".join(rows) + "\n" + record + ",,\n")


def compile_archive(src: str, dst: str, location: str, keep_source: bool, optimize: int = 0,
                    class_docstrings_only: bool = False) -> dict[str, object]:
    """Rewrite archive ``src`` as ``dst`` with bytecode; ``location`` is where Python will see its files.

    ``optimize`` is compile()'s level: 2 drops docstrings and asserts; ``class_docstrings_only`` drops
    the docstrings of modules and functions only (see _without_docstrings_but_classes). A .pyc in its source's place is
    loaded whatever its level; one in __pycache__ beside a kept source would not be (its name says the
    level), so a kept source is compiled at level 0 only.
    """
    if keep_source and optimize:
        raise ValueError(f"{src}: a kept source is compiled at optimize=0, not {optimize}")
    failed: list[str] = []
    with zipfile.ZipFile(src) as zin:
        names = zin.namelist()
        record = next((n for n in names if n.endswith(".dist-info/RECORD")), None)
        entries = _compiled(zin, location, keep_source, optimize, class_docstrings_only, record, failed)
    _write(dst, entries, record)
    compiled = sum(1 for name, _, _ in entries if name.endswith(".pyc"))
    return {"compiled": compiled, "failed": failed}


def run(job_path: str) -> None:
    """Compile every item of the job file; write the report beside it (``<job>.out``)."""
    with open(job_path) as fh:
        job = json.load(fh)
    report = {}
    for item in job["items"]:
        report[item["dst"]] = compile_archive(
            "/host" + item["src"], "/host" + item["dst"], item["location"], item["keep_source"], item["optimize"],
            item["class_docstrings_only"])
    with open(job_path + ".out", "w") as fh:
        json.dump(report, fh)
