"""Python compiled to bytecode at build time, with Pyodide itself under node.

Neither the core's python_stdlib.zip nor PyPI's pure wheels carry bytecode, and Pyodide's file
system is fresh at every boot, so every import compiles source, cold and warm. The build compiles
them once, with the very Python of the bundle (Pyodide running in node: pyc_driver.mjs runs
pyc_compiler.py), to unchecked-hash .pyc files: every archive becomes .pyc-only, as upstream
Pyodide ships its own packages (the app's own too: a traceback names file and line from the .pyc,
without the source line; a package named in the bundle's keep_source keeps its sources beside
the .pyc in __pycache__). Inputs are verified before this step; the lock records
the sha256 of the compiled files. Results are cached by input hash. Without node the build stops
(tools.MissingToolError): it needs node for the app's stdlib imports as well (stdlib_split.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sitewalk_build.bundle import Bundle
from sitewalk_build.digests import sha256
from sitewalk_build.errors import BuildError, log
from sitewalk_build.paths import CACHE
from sitewalk_build.tools import require

HERE = Path(__file__).resolve().parent
COMPILER = HERE / "pyc_compiler.py"  # runs inside Pyodide
DRIVER = HERE / "pyc_driver.mjs"  # starts Pyodide under node and runs the compiler
# Bumped when the compiler's output format changes (the compiler's text is in the cache key too).
PYC_FORMAT = "2"  # 2: stored entries (HTTP compresses the archive as a whole)


@dataclass(frozen=True)
class Job:
    """One archive to compile: ``src`` into ``dst``; ``location`` is where Python sees its files.

    ``optimize`` is the archive's compile() level: 2 (no docstrings, no asserts) makes third-party
    bytecode about 14 % smaller (brotli); 0 keeps both, for the stdlib and the app (the docstrings of
    the app's pydantic models are their JSON-schema descriptions, sent in the tool manifest).
    ``class_docstrings_only`` drops the other docstrings (the modules' and functions'), which
    nothing reads at run time, and keeps the classes' (the app's).
    """

    src: Path
    dst: Path
    location: str
    keep_source: bool
    optimize: int = 0
    class_docstrings_only: bool = False


def precompile_archives(jobs: list[Job], core: Path, bundle: Bundle, cache: Path = CACHE) -> None:
    """Compile each job's archive into its dst (from the cache when it was compiled before).

    Raises MissingToolError when node is not on PATH.
    """
    node = require("node", "to compile the bytecode with Pyodide")
    todo = []
    for job in jobs:
        cached = _cached_path(job, bundle, cache)
        if cached.exists():
            shutil.copy2(cached, job.dst)
        else:
            todo.append((job, cached))
    if todo:
        log(f"compiling bytecode for {len(todo)} archive(s) with Pyodide under node")
        _compile(node, todo, core, cache)


def _cached_path(job: Job, bundle: Bundle, cache: Path) -> Path:
    salt = hashlib.sha256((bundle["pyodide_integrity"] + PYC_FORMAT + COMPILER.read_text()).encode()).hexdigest()[:16]
    inputs = f"{salt}|{sha256(job.src)}|{job.location}|{job.keep_source}|{job.optimize}|{job.class_docstrings_only}"
    key = hashlib.sha256(inputs.encode()).hexdigest()[:24]
    return cache / "pyc" / key / job.src.name


def _compile(node: str, todo: list[tuple[Job, Path]], core: Path, cache: Path) -> None:
    """One node process compiles every archive of ``todo``; each result goes to its dst and the cache."""
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        tmpd = Path(tmp).resolve()
        outs = [tmpd / f"{i}-{job.src.name}" for i, (job, _) in enumerate(todo)]
        job_file = tmpd / "job.json"
        job_file.write_text(json.dumps({"items": [
            {"src": str(job.src.resolve()), "dst": str(out), "location": job.location, "keep_source": job.keep_source,
             "optimize": job.optimize, "class_docstrings_only": job.class_docstrings_only}
            for (job, _), out in zip(todo, outs, strict=True)]}))
        proc = subprocess.run([node, str(DRIVER), str(core.resolve()), str(job_file), str(COMPILER)],
                              capture_output=True, text=True)
        report_path = Path(str(job_file) + ".out")
        if proc.returncode != 0 or not report_path.exists():
            tail = (proc.stdout + proc.stderr)[-3000:]
            raise BuildError(f"bytecode compilation failed ({proc.returncode}):\n{tail}")
        report = json.loads(report_path.read_text())
        for (job, cached), out in zip(todo, outs, strict=True):
            failed = report.get(str(out), {}).get("failed", [])
            if failed:
                log(f"note: {job.dst.name}: {len(failed)} file(s) left as source ({failed[0][:120]})")
            os.chmod(out, 0o644)
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out, cached)
            shutil.copy2(out, job.dst)
