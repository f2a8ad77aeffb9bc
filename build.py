#!/usr/bin/env python3
"""Build, serve and benchmark the Sitewalk static site.

    python build.py [build] [--server URL] [--force]
    python build.py serve [--port P] [--server-port Q] [--base /sub/path/]
    python build.py bench [--runs N]

``build`` writes ``dist/``: the Pyodide core; the pinned pure wheels merged
into one archive Python imports from in place (``wheels/site-packages.zip``,
their dist-info in ``wheels/site-packages-metadata.zip``), fetched by boot.js
with subresource integrity; the wheels with native code and the project's own
``sitewalk`` wheel, with a lock file for them (installed by loadPackage); the
files of ``web/``, a service worker with its precache manifest and
``config.json``. Everything
pinned lives in ``[tool.sitewalk.bundle]`` of ``pyproject.toml`` and every
downloaded file is verified against its hash. Downloads are cached in
``.cache/`` so a second build needs no network.

Importing this module has no side effects. The helpers below are public and
used by the end-to-end test fixtures:

    build(...)                  -> Path of dist
    ensure_built(...)           -> Path of dist (builds only when stale)
    is_stale(dist)              -> bool
    start_agent_server(port)    -> AgentServer (.url, .port, .stop(), .log_tail())
    serve_static(dist, port)    -> StaticServer (.url, .port, .stop())
    app_url(static_url, server_url) -> str
    free_port()                 -> int

The build itself uses only the standard library (plus ``pip``/``npm`` as
subprocesses for downloads). ``bench`` needs playwright.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import contextlib
import fcntl
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ROOT",
    "DIST",
    "DEFAULT_SERVER_URL",
    "BuildError",
    "AgentServerError",
    "AgentServer",
    "StaticServer",
    "load_bundle",
    "build",
    "ensure_built",
    "is_stale",
    "scan_dist",
    "start_agent_server",
    "serve_static",
    "app_url",
    "free_port",
    "chromium_launch_args",
    "CHROMIUM_ARGS",
    "wait_js",
    "run_bench",
    "main",
]

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
WEB = ROOT / "web"
PY_SRC = ROOT / "py_src"
CACHE = ROOT / ".cache"
PYPROJECT = ROOT / "pyproject.toml"
DEFAULT_SERVER_URL = "http://127.0.0.1:2024"
STAMP = ".build-stamp.json"

# Headless Chromium as it works on this project's machines (Debian chromium).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Text files in dist/ that are scanned for foreign origins.
TEXT_SUFFIXES = {".html", ".js", ".mjs", ".css", ".json", ".txt", ".webmanifest", ".svg"}

# Origins that the Pyodide core mentions but never uses when indexURL and the
# lock are on the site: (file, regex matching the whole URL literal, count).
# The CDN default in pyodide.mjs is a template literal used only when no
# packageBaseUrl/indexURL is given; pyodide.asm.mjs builds a URL for a host
# name given at run time (node's http fallback). Matched by shape, not host.
CORE_ALLOWED_URLS = [
    ("pyodide/pyodide.mjs", r"https://[a-z0-9.-]+/pyodide/v\$\{\w+\}/full/", 1),
    ("pyodide/pyodide.asm.mjs", r"https://\$\{\w+\}", 1),
]

URL_RE = re.compile(r"https?://[^\s\"'`<>()\\]*")
PROTOCOL_RELATIVE_RE = re.compile(r"""(?:src|href|action)\s*=\s*["']?//""", re.I)
XMLNS_RE = re.compile(r"""\bxmlns(?::\w+)?\s*=\s*["'][^"']*["']""")
LOOPBACK_SOURCE_RE = re.compile(r"^https?://(127\.0\.0\.1|localhost|\[::1\]):\*$")


ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class BuildError(RuntimeError):
    """The build could not produce a verified dist/."""


class AgentServerError(RuntimeError):
    """The agent server failed to start or died."""


def log(msg: str) -> None:
    print(f"[sitewalk] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Bundle description (pyproject.toml)
# ---------------------------------------------------------------------------


def load_bundle(pyproject: Path = PYPROJECT) -> dict:
    """Return ``[tool.sitewalk.bundle]`` of pyproject.toml."""
    with open(pyproject, "rb") as fh:
        data = tomllib.load(fh)
    try:
        bundle = data["tool"]["sitewalk"]["bundle"]
    except KeyError as exc:
        raise BuildError("pyproject.toml has no [tool.sitewalk.bundle]") from exc
    for w in bundle.get("wheels", []):
        for key in ("name", "version", "file", "sha256", "source", "imports", "depends"):
            if key not in w:
                raise BuildError(f"bundle wheel {w.get('name')!r} lacks {key!r}")
    return bundle


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _npm_integrity(path: Path) -> str:
    h = hashlib.sha512()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha512-" + base64.b64encode(h.digest()).decode()


def _run(cmd: list[str], *, env: dict | None = None, cwd: Path | None = None) -> None:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        out = "\n".join(
            line
            for line in (proc.stdout + proc.stderr).splitlines()
            if "is ignored: it is neither a file nor a directory" not in line
        )
        raise BuildError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{out[-4000:]}")


# ---------------------------------------------------------------------------
# Fetching pinned inputs into the cache
# ---------------------------------------------------------------------------


def fetch_pyodide(bundle: dict, cache: Path = CACHE) -> Path:
    """Return a directory holding the verified Pyodide core files."""
    version = bundle["pyodide"]
    integrity = bundle["pyodide_integrity"]
    tgz = cache / "npm" / f"pyodide-{version}.tgz"
    if not tgz.exists() or _npm_integrity(tgz) != integrity:
        log(f"downloading pyodide@{version} (npm pack)")
        tgz.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=tgz.parent) as tmp:
            _run(["npm", "pack", f"pyodide@{version}", "--silent", "--pack-destination", tmp])
            got = Path(tmp) / f"pyodide-{version}.tgz"
            if not got.exists():
                raise BuildError(f"npm pack did not produce {got.name}")
            os.replace(got, tgz)
    actual = _npm_integrity(tgz)
    if actual != integrity:
        raise BuildError(f"pyodide tarball integrity mismatch: expected {integrity}, got {actual}")

    core = cache / f"pyodide-{version}-{hashlib.sha256(integrity.encode()).hexdigest()[:12]}"
    wanted = list(bundle["pyodide_files"]) + [bundle.get("pyodide_lock", "pyodide-lock.json")]
    if not all((core / f).exists() for f in wanted):
        tmp = core.with_name(core.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        with tarfile.open(tgz) as tar:
            for name in wanted:
                member = tar.getmember(f"package/{name}")
                src = tar.extractfile(member)
                if src is None:
                    raise BuildError(f"{name} missing from the pyodide tarball")
                with open(tmp / name, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        shutil.rmtree(core, ignore_errors=True)
        os.replace(tmp, core)
    return core


def _pip() -> list[str]:
    return [sys.executable, "-m", "pip"]


def fetch_wheel(spec: dict, bundle: dict, cache: Path = CACHE) -> Path:
    """Return the cached, sha256-verified wheel described by ``spec``."""
    dest = cache / "wheels" / spec["file"]
    if dest.exists() and _sha256(dest) == spec["sha256"]:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    req = f"{spec['name']}=={spec['version']}"
    source = spec["source"]
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        tmpd = Path(tmp)
        base = _pip() + ["--disable-pip-version-check", "download", "--no-deps", "-q", "-d", tmp]
        if source == "emscripten":
            log(f"downloading {req} for {bundle['platform']}")
            _run(base + [
                "--only-binary=:all:", "--platform", bundle["platform"],
                "--python-version", bundle["python"], "--implementation", "cp",
                "--abi", bundle["abi"], req,
            ])
        elif source == "pypi":
            log(f"downloading {req}")
            _run(base + ["--only-binary=:all:", "--python-version", bundle["python"], req])
        elif source == "sdist-pure":
            log(f"building {req} as a pure wheel from its sdist")
            _run(base + ["--no-binary=:all:", req])
            sdist = tmpd / spec["sdist"]
            if not sdist.exists() or _sha256(sdist) != spec["sdist_sha256"]:
                raise BuildError(f"sdist {spec['sdist']} missing or its sha256 differs from pyproject")
            constraints = tmpd / "build-constraints.txt"
            constraints.write_text("\n".join(spec.get("build_constraints", [])) + "\n")
            env = dict(os.environ)
            env.update({
                "CC": "/bin/false",
                "CXX": "/bin/false",
                "SOURCE_DATE_EPOCH": str(spec.get("source_date_epoch", 315532800)),
                "PIP_CONSTRAINT": str(constraints),
                "PYTHONHASHSEED": "0",
            })
            out = tmpd / "out"
            _run(_pip() + ["--disable-pip-version-check", "wheel", "--no-deps", "-q",
                           "--no-binary=:all:", "-w", str(out), str(sdist)], env=env)
            built = out / spec["file"]
            if not built.exists():
                raise BuildError(f"building {req} did not yield {spec['file']}: {os.listdir(out)}")
            os.replace(built, tmpd / spec["file"])
        else:
            raise BuildError(f"unknown wheel source {source!r} for {spec['name']}")
        got = tmpd / spec["file"]
        if not got.exists():
            raise BuildError(f"pip did not produce {spec['file']} (got {sorted(os.listdir(tmp))})")
        actual = _sha256(got)
        if actual != spec["sha256"]:
            raise BuildError(
                f"sha256 mismatch for {spec['file']}: pyproject says {spec['sha256']}, got {actual}"
            )
        os.replace(got, dest)
    return dest


# ---------------------------------------------------------------------------
# The project's own browser wheel
# ---------------------------------------------------------------------------

_EPOCH = (1980, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_app_wheel(app: dict, src_root: Path, out_dir: Path) -> Path:
    """Build ``<name>-<version>-py3-none-any.whl`` from ``src_root/<package>``.

    Deterministic (sorted entries, fixed timestamps). Includes every file of
    the package except caches and compiled files, so package data (*.j2,
    *.html, *.json) ships with the code.
    """
    name, version, package = app["name"], app["version"], app["package"]
    pkg_dir = src_root / package
    if not (pkg_dir / "__init__.py").exists():
        raise BuildError(f"{pkg_dir} is not a package (no __init__.py)")
    dist_name = re.sub(r"[-.]+", "_", name)
    info = f"{dist_name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = []
    for path in sorted(pkg_dir.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}:
            continue
        if path.name.startswith(".") or path.name.endswith("~"):
            continue
        files.append((path.relative_to(src_root).as_posix(), path.read_bytes()))
    requires = "".join(f"Requires-Dist: {d}\n" for d in app.get("depends", []))
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}".encode()
    wheel = b"Wheel-Version: 1.0\nGenerator: sitewalk-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files += [
        (f"{info}/METADATA", metadata),
        (f"{info}/WHEEL", wheel),
        (f"{info}/top_level.txt", f"{package}\n".encode()),
    ]
    record = "".join(f"{n},{_record_hash(d)},{len(d)}\n" for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{dist_name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, _EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    return out


SITE_ARCHIVE = "site-packages.zip"  # the pure packages' code, imported in place (zipimport)
SITE_METADATA = "site-packages-metadata.zip"  # their dist-info, unpacked into site-packages


def _is_pure_wheel(path: Path) -> bool:
    """A wheel Python can import from in place: purelib, no extension modules."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        wheel_meta = next((n for n in names if n.endswith(".dist-info/WHEEL")), None)
        purelib = wheel_meta is not None and b"Root-Is-Purelib: true" in zf.read(wheel_meta)
    return purelib and not any(n.endswith((".so", ".pyd", ".dylib")) for n in names)


def build_site_archives(wheels: list[tuple[dict, Path]], code_out: Path, metadata_out: Path) -> None:
    """Merge the contents of pure, verified wheels into two deterministic zips.

    ``code_out`` holds the packages, for zipimport. ``metadata_out`` holds
    each wheel's dist-info (but RECORD, which lists files installed on disk):
    importlib.metadata reads a dist-info on the file system cheaply, but one
    inside a zip on sys.path costs it a parse of the whole METADATA (pydantic
    scans for plugins at its first model), so it is unpacked at boot instead.
    Two wheels providing the same file is an error.
    """
    entries: dict[str, tuple[str, bytes]] = {}
    for spec, path in wheels:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename
                if info.is_dir() or name.endswith(".dist-info/RECORD"):
                    continue
                if name.startswith("/") or ".." in name.split("/"):
                    raise BuildError(f"{path.name}: unsafe path {name!r}")
                if name in entries:
                    raise BuildError(f"{name} is in both {entries[name][0]} and {spec['name']}")
                entries[name] = (spec["name"], zf.read(name))
    is_metadata = lambda name: name.split("/", 1)[0].endswith(".dist-info")  # noqa: E731
    for out, keep in ((code_out, lambda n: not is_metadata(n)), (metadata_out, is_metadata)):
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(n for n in entries if keep(n)):
                zi = zipfile.ZipInfo(name, _EPOCH)
                zi.external_attr = 0o644 << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(zi, entries[name][1])


# ---------------------------------------------------------------------------
# Precompiling Python to bytecode (with Pyodide itself, under node)
# ---------------------------------------------------------------------------
#
# Neither the core's python_stdlib.zip nor PyPI's pure wheels carry bytecode,
# and Pyodide's file system is fresh at every boot, so every import compiles
# source, cold and warm. The build compiles them once, with the very Python
# of the bundle (Pyodide 314.0.8 running in node), to unchecked-hash .pyc
# files: third-party code and the stdlib become .pyc-only (as upstream
# Pyodide ships its own packages); the project's own wheel keeps its sources
# (tracebacks) with the .pyc in __pycache__. Inputs are verified before this
# step; the lock records the sha256 of the compiled files. Results are cached
# by input hash. Without node the build ships sources (slower boot) and warns.

PYC_COMPILER = r"""
import base64, hashlib, importlib._bootstrap_external as be, importlib.util, json, os, sys, zipfile

TAG = sys.implementation.cache_tag


def _pyc(source, filename):
    code = compile(source, filename, "exec", dont_inherit=True, optimize=0)
    return bytes(be._code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))


def compile_archive(src, dst, location, keep_source):
    failed, n = [], 0
    with zipfile.ZipFile(src) as zin:
        infos = zin.infolist()
        record = next((i.filename for i in infos if i.filename.endswith(".dist-info/RECORD")), None)
        out = []
        for info in infos:
            data = zin.read(info.filename)
            name = info.filename
            if name.endswith(".py") and not info.is_dir():
                try:
                    pyc = _pyc(data, location.rstrip("/") + "/" + name)
                except (SyntaxError, ValueError) as exc:
                    failed.append(name + ": " + str(exc))
                    out.append((name, info, data))
                    continue
                n += 1
                if keep_source:
                    out.append((name, info, data))
                    d, base = os.path.split(name)
                    pyc_name = (d + "/" if d else "") + "__pycache__/" + base[:-3] + "." + TAG + ".pyc"
                else:
                    pyc_name = name + "c"
                out.append((pyc_name, info, pyc))
            elif name != record:
                out.append((name, info, data))
    rows = []
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, info, data in out:
            zi = zipfile.ZipInfo(name, info.date_time)
            zi.external_attr = info.external_attr or (0o644 << 16)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(zi, data)
            if not name.endswith("/"):
                h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                rows.append(name + ",sha256=" + h + "," + str(len(data)))
        if record:
            zi = zipfile.ZipInfo(record, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(zi, "\n".join(rows) + "\n" + record + ",,\n")
    return {"compiled": n, "failed": failed}


def run(job_path):
    with open(job_path) as fh:
        job = json.load(fh)
    report = {}
    for item in job["items"]:
        report[item["dst"]] = compile_archive(
            "/host" + item["src"], "/host" + item["dst"], item["location"], item["keep_source"])
    with open(job_path + ".out", "w") as fh:
        json.dump(report, fh)
"""

PYC_DRIVER = r"""
import { pathToFileURL } from "node:url";
const [coreDir, job, compiler] = process.argv.slice(-3);
const { loadPyodide } = await import(pathToFileURL(coreDir + "/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: coreDir + "/", lockFileURL: coreDir + "/pyodide-lock.json",
                               stdout: () => {}, stderr: (s) => console.error(s) });
py.mountNodeFS("/host", "/");
const { readFileSync } = await import("node:fs");
py.runPython(readFileSync(compiler, "utf8"));
py.globals.get("run")("/host" + job);
"""

# Bumped when the compiler's output format changes (invalidates the cache).
PYC_FORMAT = "1"


def precompile_archives(items: list[tuple[Path, Path, str, bool]], core: Path, bundle: dict,
                        cache: Path = CACHE) -> bool:
    """Compile each (src, dst, location, keep_source) archive into dst.

    Returns False (and copies the sources unchanged) when node is missing.
    """
    node = shutil.which("node")
    if not node:
        log("warning: node not found, shipping Python sources without bytecode (slower boot)")
        for src, dst, _, _ in items:
            shutil.copy2(src, dst)
        return False
    salt = hashlib.sha256((bundle["pyodide_integrity"] + PYC_FORMAT + PYC_COMPILER).encode()).hexdigest()[:16]
    pyc_cache = cache / "pyc"
    todo = []
    for src, dst, location, keep in items:
        key = hashlib.sha256(f"{salt}|{_sha256(src)}|{location}|{keep}".encode()).hexdigest()[:24]
        cached = pyc_cache / key / src.name
        if cached.exists():
            shutil.copy2(cached, dst)
        else:
            todo.append((src, dst, location, keep, cached))
    if not todo:
        return True
    log(f"compiling bytecode for {len(todo)} archive(s) with Pyodide under node")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        tmpd = Path(tmp).resolve()
        outs = []
        for i, (src, dst, location, keep, cached) in enumerate(todo):
            out = tmpd / f"{i}-{src.name}"
            outs.append((out, dst, cached))
        job = tmpd / "job.json"
        job.write_text(json.dumps({"items": [
            {"src": str(src.resolve()), "dst": str(out), "location": location, "keep_source": keep}
            for (src, _, location, keep, _), (out, _, _) in zip(todo, outs)]}))
        compiler = tmpd / "compile.py"
        compiler.write_text(PYC_COMPILER)
        driver = tmpd / "driver.mjs"
        driver.write_text(PYC_DRIVER)
        proc = subprocess.run([node, str(driver), str(core.resolve()), str(job), str(compiler)],
                              capture_output=True, text=True)
        report_path = Path(str(job) + ".out")
        if proc.returncode != 0 or not report_path.exists():
            raise BuildError(f"bytecode compilation failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
        report = json.loads(report_path.read_text())
        for out, dst, cached in outs:
            failed = report.get(str(out), {}).get("failed", [])
            if failed:
                log(f"note: {dst.name}: {len(failed)} file(s) left as source ({failed[0][:120]})")
            os.chmod(out, 0o644)
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out, cached)
            shutil.copy2(out, dst)
    return True


# ---------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _inputs(web: Path, app_src: Path, package: str) -> list[Path]:
    paths = [PYPROJECT, Path(__file__).resolve()]
    for root in (web, app_src / package):
        if root.exists():
            paths += [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return paths


def is_stale(dist: Path = DIST, *, web: Path = WEB, app_src: Path = PY_SRC,
             server_url: str | None = None, bench: bool = False) -> bool:
    """True when dist/ is missing, or an input (web/, the app package,
    pyproject.toml, build.py) is newer than it, or a different server URL is
    asked for."""
    stamp = dist / STAMP
    if not stamp.exists():
        return True
    try:
        info = json.loads(stamp.read_text())
    except ValueError:
        return True
    if server_url is not None and info.get("agentServerUrl") != server_url:
        return True
    if bench and not info.get("bench"):
        return True
    if info.get("app_src") != str(app_src.resolve()) or info.get("web") != str(web.resolve()):
        return True
    built = stamp.stat().st_mtime
    bundle = load_bundle()
    names = {str(p.relative_to(p.anchor)) for p in _inputs(web, app_src, bundle["app"]["package"])}
    if sorted(names) != info.get("inputs"):
        return True  # a file was added or removed
    return any(p.stat().st_mtime > built for p in _inputs(web, app_src, bundle["app"]["package"]))


def ensure_built(dist: Path = DIST, **kwargs) -> Path:
    """Build dist/ if it is stale; return its path.

    Takes build()'s keyword arguments; a rebuild keeps the agent server URL
    and the bench files of the previous build unless told otherwise.
    """
    with _build_lock(kwargs.get("cache", CACHE)):
        with contextlib.suppress(OSError, ValueError, KeyError):
            previous = json.loads((dist / STAMP).read_text())
            kwargs.setdefault("server_url", previous["agentServerUrl"])
            kwargs.setdefault("bench", bool(previous.get("bench")))
        return _ensure_built_locked(dist, **kwargs)


@contextlib.contextmanager
def _build_lock(cache: Path = CACHE):
    """Serialize builds of this checkout (tests and developers build concurrently)."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "build.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _ensure_built_locked(dist: Path, **kwargs) -> Path:
    if is_stale(dist, web=kwargs.get("web", WEB), app_src=kwargs.get("app_src", PY_SRC),
                server_url=kwargs.get("server_url"), bench=kwargs.get("bench", False)):
        return _build(dist, **kwargs)
    return dist


def _csp(server_url: str) -> str:
    """The Content-Security-Policy written into index.html.

    No inline script or style, no eval ('wasm-unsafe-eval' only, which
    WebAssembly needs), everything else from the site itself. connect-src is
    the one place that must reach beyond the site, because the agent server
    is configuration (config.json, or ?server= at run time) and usually
    another origin: it allows the site, loopback on any port (local
    development: `serve` picks free ports), any https origin (a deployed
    agent server; an https page could not reach plain http anyway), and the
    configured server's origin when it is plain http on another host (a LAN
    deployment built with --server). It does not allow arbitrary plain-http
    hosts, and nothing but fetch/XHR/EventSource is widened.
    """
    connect = ["'self'", "http://127.0.0.1:*", "http://localhost:*", "https:"]
    origin = _origin(server_url)
    if origin and not origin.startswith("https:") and not _is_loopback(origin):
        connect.append(origin)
    return "; ".join([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src " + " ".join(connect),
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ])


def _origin(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    if p.scheme not in ("http", "https") or not p.netloc:
        raise BuildError(f"agent server URL must be absolute http(s): {url!r}")
    return f"{p.scheme}://{p.netloc}"


def _is_loopback(origin: str) -> bool:
    host = urllib.parse.urlsplit(origin).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def build(dist: Path = DIST, **kwargs) -> Path:
    """Build the static site into ``dist``; return its path. See _build."""
    with _build_lock(kwargs.get("cache", CACHE)):
        return _build(dist, **kwargs)


def _build(dist: Path = DIST, *, server_url: str = DEFAULT_SERVER_URL, web: Path = WEB,
          app_src: Path = PY_SRC, cache: Path = CACHE, quiet: bool = False,
          bench: bool = False) -> Path:
    """Build the static site into ``dist``; return its path.

    Raises BuildError on a hash mismatch, a missing input or a reference to a
    foreign origin in the output. ``bench=True`` also writes the bare-Pyodide
    baseline's own copies of the stdlib and wheels as shipped (no bytecode)
    into dist/bench/ (excluded from the service worker's precache).
    """
    t0 = time.monotonic()
    _origin(server_url)
    bundle = load_bundle()
    app = bundle["app"]
    core = fetch_pyodide(bundle, cache)
    core_lock = json.loads((core / bundle.get("pyodide_lock", "pyodide-lock.json")).read_text())
    info = core_lock["info"]
    if info.get("abi_version") and info["abi_version"] not in bundle["platform"]:
        raise BuildError(f"core abi {info['abi_version']} does not match platform {bundle['platform']}")
    if not str(info.get("python", "")).startswith(bundle["python"]):
        raise BuildError(f"core python {info.get('python')} is not {bundle['python']}")
    wheels = [(w, fetch_wheel(w, bundle, cache)) for w in bundle["wheels"]]
    cache.mkdir(parents=True, exist_ok=True)

    dist.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=dist.parent, prefix=f".{dist.name}-staging-"))
    os.chmod(staging, 0o755)
    (staging / "pyodide").mkdir(parents=True)
    (staging / "wheels").mkdir()

    precompile = bundle.get("precompile", True)
    site = f"/lib/python{info['python'].rsplit('.', 1)[0]}/site-packages"
    stdlib_zip = f"/lib/python{info['python'].rsplit('.', 1)[0].replace('.', '')}.zip"
    jobs: list[tuple[Path, Path, str, bool]] = []
    for name in bundle["pyodide_files"]:
        if precompile and name == "python_stdlib.zip":
            jobs.append((core / name, staging / "pyodide" / name, stdlib_zip, False))
        else:
            shutil.copy2(core / name, staging / "pyodide" / name)

    # Pure wheels ship as one archive that Python imports from (zipimport): nothing of them is
    # unpacked at boot. Wheels with native code (their .so must be on the file system) and the
    # app's own wheel (jinja2 reads its templates from disk) are installed by loadPackage.
    zipped = [(spec, path) for spec, path in wheels if _is_pure_wheel(path)]
    installed = [(spec, path) for spec, path in wheels if not _is_pure_wheel(path)]
    site_zip_path = site + ".zip"  # where boot.js writes the archive; it is appended to sys.path
    app_tmp = Path(tempfile.mkdtemp(dir=cache))
    try:
        app_whl = build_app_wheel(app, app_src, app_tmp)
        installed.append((app, app_whl))
        site_src, site_dst = app_tmp / SITE_ARCHIVE, staging / "wheels" / SITE_ARCHIVE
        build_site_archives(zipped, site_src, staging / "wheels" / SITE_METADATA)
        for spec, path in installed:
            dst = staging / "wheels" / path.name
            if precompile:
                jobs.append((path, dst, site, spec["name"] in bundle.get("keep_source", [app["name"]])))
            else:
                shutil.copy2(path, dst)
        if precompile:
            jobs.append((site_src, site_dst, site_zip_path, False))
        else:
            shutil.copy2(site_src, site_dst)
        if jobs:
            precompile_archives(jobs, core, bundle, cache)
    except BaseException:
        shutil.rmtree(app_tmp, ignore_errors=True)
        raise

    # Every package of the bundle, with its full dependencies (the install order, and the bare
    # baseline's lock); the lock Sitewalk ships lists the installed wheels only, their
    # dependencies on archived packages being met by the archive on sys.path.
    archives = [(spec, path) for spec, path in wheels] + [(app, app_whl)]
    everything = {_canonical(spec["name"]): _lock_entry(spec["name"], spec["version"], path.name, _sha256(path),
                                                        spec["imports"], spec["depends"])
                  for spec, path in archives}
    for key, entry in everything.items():
        for dep in entry["depends"]:
            if dep not in everything:
                raise BuildError(f"{key} depends on {dep}, which is not in the bundle")
    in_archive = [_canonical(spec["name"]) for spec, _ in zipped]
    packages: dict[str, dict] = {}
    for spec, path in installed:
        key = _canonical(spec["name"])
        packages[key] = dict(everything[key], sha256=_sha256(staging / "wheels" / path.name),
                             depends=[d for d in everything[key]["depends"] if d not in in_archive])
    lock = {"info": info, "packages": packages}
    (staging / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")

    if bench:
        # The baseline: the core's stdlib and the wheels exactly as downloaded.
        bdir = staging / "bench"
        (bdir / "wheels").mkdir(parents=True)
        shutil.copy2(core / "python_stdlib.zip", bdir / "python_stdlib.zip")
        for spec, path in archives:
            shutil.copy2(path, bdir / "wheels" / path.name)
        (bdir / "pyodide-lock.json").write_text(
            json.dumps({"info": info, "packages": everything}, indent=1, sort_keys=True) + "\n")

    # web/ files; index.html gets its CSP and preload hints.
    if not (web / "index.html").exists():
        raise BuildError(f"{web}/index.html is missing")
    for path in sorted(web.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(web)
        out = staging / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)

    order = _install_order(everything)
    bundle_mjs = {
        "version": "",  # filled below
        "pyodide": bundle["pyodide"],
        "packages": order,  # every package of the bundle, in install order
        "wheels": [key for key in order if key in packages],  # installed by pyodide.loadPackage
        "archive": {  # fetched by boot.js (subresource integrity) and imported from in place
            "file": f"wheels/{SITE_ARCHIVE}",
            "integrity": _sri(site_dst),
            "path": site_zip_path,
            "metadata": f"wheels/{SITE_METADATA}",  # unpacked into site_packages
            "metadataIntegrity": _sri(staging / "wheels" / SITE_METADATA),
            "sitePackages": site,
            "packages": [key for key in order if key in in_archive],
        },
        "entry": app.get("entry", "sitewalk.app"),
    }
    (staging / "config.json").write_text(json.dumps({"agentServerUrl": server_url}, indent=1) + "\n")

    index = staging / "index.html"
    html = index.read_text()
    html = html.replace("%SITEWALK_CSP%", _csp(server_url))
    # Start every fetch the boot needs at once, while the scripts compile and
    # Python starts: Pyodide then finds them in the preload cache. Wheels are
    # fetched by Pyodide with subresource integrity; Chromium ignores
    # integrity on as=fetch preloads and still reuses them (checked: one
    # request per file), and verifies the hash when Pyodide consumes them.
    preload = [
        '<link rel="modulepreload" href="pyodide/pyodide.mjs">',
        '<link rel="modulepreload" href="pyodide/pyodide.asm.mjs">',
        '<link rel="modulepreload" href="bundle.mjs">',
        '<link rel="preload" href="pyodide/pyodide.asm.wasm" as="fetch" crossorigin>',
        '<link rel="preload" href="pyodide/python_stdlib.zip" as="fetch" crossorigin>',
        '<link rel="preload" href="pyodide-lock.json" as="fetch" crossorigin>',
        '<link rel="preload" href="config.json" as="fetch" crossorigin>',
    ]
    archive = bundle_mjs["archive"]
    for href in [archive["file"], archive["metadata"]] + [packages[key]["file_name"] for key in bundle_mjs["wheels"]]:
        preload.append(f'<link rel="preload" href="{href}" as="fetch" crossorigin>')
    html = html.replace("<!--SITEWALK:PRELOAD-->", "\n  ".join(preload))
    index.write_text(html)

    # Version = hash of everything the service worker will serve.
    def manifest_files() -> list[str]:
        skip = {"sw.js", STAMP}
        out = []
        for p in sorted(staging.rglob("*")):
            rel = p.relative_to(staging).as_posix()
            if p.is_dir() or rel in skip or rel.startswith("bench/"):
                continue
            out.append(rel)
        return out

    # bundle.mjs carries a version too; compute it from everything but itself.
    h = hashlib.sha256()
    for rel in manifest_files():
        if rel == "bundle.mjs":
            continue
        h.update(rel.encode() + b"\0" + _sha256(staging / rel).encode() + b"\n")
    version = h.hexdigest()[:16]
    bundle_mjs["version"] = version
    (staging / "bundle.mjs").write_text(
        "// Generated by build.py: what the boot script loads. Do not edit.\n"
        f"export default {json.dumps(bundle_mjs, indent=1)};\n"
    )
    files = manifest_files()
    sizes = {rel: (staging / rel).stat().st_size for rel in files}
    sw = staging / "sw.js"
    if sw.exists():
        # Each file with its subresource integrity: the service worker stores
        # exactly what was built, or nothing (a corrupt file fails install).
        integrity = {rel: _sri(staging / rel) for rel in files}
        integrity["./"] = integrity["index.html"]
        manifest = {"version": version, "files": ["./"] + files, "integrity": integrity}
        text = sw.read_text()
        new, n = re.subn(r"/\*__PRECACHE__\*/.*?/\*__END__\*/",
                         lambda m: "/*__PRECACHE__*/" + json.dumps(manifest) + "/*__END__*/",
                         text, flags=re.S)
        if n != 1:
            raise BuildError("web/sw.js lacks the /*__PRECACHE__*/.../*__END__*/ marker")
        sw.write_text(new)

    shutil.rmtree(app_tmp, ignore_errors=True)
    problems = scan_dist(staging, server_url)
    if problems:
        shutil.rmtree(staging, ignore_errors=True)
        raise BuildError("dist would reference foreign origins:\n  " + "\n  ".join(problems))

    inputs = sorted({str(p.relative_to(p.anchor)) for p in _inputs(web, app_src, app["package"])})
    (staging / STAMP).write_text(json.dumps({
        "version": version,
        "agentServerUrl": server_url,
        "app_src": str(app_src.resolve()),
        "web": str(web.resolve()),
        "inputs": inputs,
        "bench": bench,
    }))
    # Swap in the new tree; a server serving the old one keeps working until then.
    old = Path(tempfile.mkdtemp(dir=dist.parent, prefix=f".{dist.name}-old-"))
    if dist.exists():
        os.replace(dist, old / dist.name)
    os.replace(staging, dist)
    shutil.rmtree(old, ignore_errors=True)
    if not quiet:
        total = sum(sizes.values())
        log(f"built {dist.name}/ version {version}: {len(files)} files, {total / 1e6:.1f} MB, "
            f"{time.monotonic() - t0:.1f} s")
    return dist


def _sri(path: Path) -> str:
    """Subresource integrity (sha256) of a file."""
    return "sha256-" + base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode()


def _lock_entry(name, version, file_name, sha256, imports, depends) -> dict:
    return {
        "name": name,
        "version": version,
        "file_name": f"wheels/{file_name}",
        "install_dir": "site",
        "sha256": sha256,
        "package_type": "package",
        "imports": list(imports),
        "depends": [_canonical(d) for d in depends],
        "unvendored_tests": False,
    }


def _install_order(packages: dict[str, dict]) -> list[str]:
    order: list[str] = []

    def visit(key: str, seen: tuple = ()) -> None:
        if key in order:
            return
        if key in seen:
            raise BuildError(f"dependency cycle through {key}")
        for dep in packages[key]["depends"]:
            visit(dep, seen + (key,))
        order.append(key)

    for key in sorted(packages):
        visit(key)
    return order


def scan_dist(dist: Path, server_url: str = DEFAULT_SERVER_URL) -> list[str]:
    """List references to http(s) origins in dist's text files that are not
    explicitly allowed. Empty list = clean."""
    problems: list[str] = []
    server_origin = _origin(server_url)
    allowed_core = {f: (re.compile(rx), n) for f, rx, n in CORE_ALLOWED_URLS}
    for path in sorted(dist.rglob("*")):
        if path.is_dir() or path.suffix not in TEXT_SUFFIXES or path.name == STAMP:
            continue
        rel = path.relative_to(dist).as_posix()
        text = path.read_text(errors="replace")
        if path.suffix in (".svg", ".html"):
            text = XMLNS_RE.sub("", text)  # namespace names are not fetched
        urls = URL_RE.findall(text)
        if rel in allowed_core:
            rx, n = allowed_core[rel]
            matching = [u for u in urls if rx.fullmatch(u)]
            others = [u for u in urls if not rx.fullmatch(u)]
            if len(matching) != n:
                problems.append(f"{rel}: expected {n} known core URL(s), found {len(matching)}")
            urls = others
        elif rel == "config.json":
            cfg = json.loads(text)
            if cfg.get("agentServerUrl") == server_url:
                urls = [u for u in urls if u != server_url]
        elif rel == "index.html":
            csp = re.search(r'http-equiv="Content-Security-Policy"\s+content="([^"]*)"', text)
            csp_urls = URL_RE.findall(csp.group(1)) if csp else []
            ok = {u for u in csp_urls if LOOPBACK_SOURCE_RE.match(u) or u == server_origin}
            urls = [u for u in urls if u not in ok]
        if path.suffix in (".html", ".css", ".svg") and PROTOCOL_RELATIVE_RE.search(text):
            problems.append(f"{rel}: protocol-relative URL")
        for u in urls:
            problems.append(f"{rel}: {u}")
    return problems


# ---------------------------------------------------------------------------
# serve: the agent server and the static site
# ---------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free now on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _langgraph_exe() -> str:
    cand = Path(sys.executable).parent / "langgraph"
    if cand.exists():
        return str(cand)
    found = shutil.which("langgraph")
    if not found:
        raise AgentServerError(
            "the `langgraph` CLI is not installed: pip install -e '.[dev]' (langgraph-cli[inmem])")
    return found


@dataclass
class AgentServer:
    """A running ``langgraph dev`` process."""

    process: subprocess.Popen
    port: int
    url: str
    log_path: Path
    _log_file: object = field(default=None, repr=False)

    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        text = ANSI_RE.sub("", text)
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop the server (its whole process group); return its exit code."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        else:
            # Leftover children of a dead leader, if any.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGTERM)
        if self._log_file:
            with contextlib.suppress(Exception):
                self._log_file.close()
        return self.process.returncode

    def __enter__(self) -> AgentServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def agent_server_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.update({
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "PYTHONUNBUFFERED": "1",
    })
    if extra:
        env.update(extra)
    return env


def start_agent_server(port: int | None = None, *, config: Path | str = "langgraph.json",
                       cwd: Path | str = ROOT, host: str = "127.0.0.1", timeout: float = 120.0,
                       log_path: Path | str | None = None, env: dict | None = None) -> AgentServer:
    """Start ``langgraph dev`` on ``port`` (a free one if None) and wait for GET /ok.

    Raises AgentServerError (with the exit code and the log's last lines) if
    it exits or does not answer within ``timeout`` seconds.
    """
    cwd = Path(cwd)
    port = port or free_port(host)
    config_path = Path(config) if Path(config).is_absolute() else cwd / config
    if not config_path.exists():
        raise AgentServerError(f"agent server config {config_path.name} not found in {cwd}")
    if log_path is None:
        log_dir = Path(tempfile.mkdtemp(prefix="sitewalk-agent-"))
        log_path = log_dir / f"agent-server-{port}.log"
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(log_path, "wb")
    cmd = [_langgraph_exe(), "dev", "--no-browser", "--no-reload", "--host", host,
           "--port", str(port), "--config", str(config_path)]
    proc = subprocess.Popen(cmd, cwd=cwd, env=agent_server_env(env), stdin=subprocess.DEVNULL,
                            stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    server = AgentServer(proc, port, f"http://{host}:{port}", log_path, log_file)
    atexit.register(server.stop)  # never leave a server behind, even on an error exit
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            server.stop()
            raise AgentServerError(
                f"agent server exited with code {proc.returncode} while starting; "
                f"last lines of {log_path.name}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(server.url + "/ok", timeout=2) as r:
                if r.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise AgentServerError(
                f"agent server did not answer GET /ok within {timeout:.0f} s; "
                f"last lines of its log:\n{server.log_tail()}")
        time.sleep(0.25)


MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    quiet = True
    protocol_version = "HTTP/1.1"

    def __init__(self, *args, directory=None, **kwargs):
        super().__init__(*args, directory=directory, **kwargs)

    def guess_type(self, path):
        return MIME_TYPES.get(Path(str(path)).suffix.lower()) or super().guess_type(path)

    def end_headers(self):
        # Revalidate every time (cheap 304s); the service worker does offline.
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _strip_base(self) -> bool:
        path, _, query = self.path.partition("?")
        if self.base != "/":
            if path + "/" == self.base:
                self.send_response(301)
                self.send_header("Location", self.base + ("?" + query if query else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False
            if not path.startswith(self.base):
                self.send_error(404, "outside the site's base path")
                return False
            self.path = "/" + path[len(self.base):] + ("?" + query if query else "")
        return True

    def do_GET(self):
        if self._strip_base():
            super().do_GET()

    def do_HEAD(self):
        if self._strip_base():
            super().do_HEAD()

    def log_message(self, fmt, *args):
        if not self.quiet:
            super().log_message(fmt, *args)

    def handle(self):
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()


class _ThreadingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@dataclass
class StaticServer:
    """dist/ served over HTTP in a background thread."""

    httpd: http.server.ThreadingHTTPServer
    thread: threading.Thread
    port: int
    url: str  # ends with the base path, e.g. http://127.0.0.1:8000/ or .../sitewalk/

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve_static(dist: Path | str = DIST, port: int = 0, *, host: str = "127.0.0.1",
                 base: str = "/", verbose: bool = False) -> StaticServer:
    """Serve ``dist`` on ``host:port`` (0 = a free port) under ``base``."""
    base = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    handler = functools.partial(type("Handler", (_Handler,), {"base": base, "quiet": not verbose}),
                                directory=str(dist))
    httpd = _ThreadingServer((host, port), handler)
    real_port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, name="sitewalk-static", daemon=True)
    thread.start()
    return StaticServer(httpd, thread, real_port, f"http://{host}:{real_port}{base}")


def app_url(static_url: str, server_url: str | None = None) -> str:
    """The URL that opens the app wired to ``server_url``."""
    if not server_url:
        return static_url
    return static_url + "?" + urllib.parse.urlencode({"server": server_url}, safe=":/")


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def cmd_serve(args) -> int:
    # SIGTERM/SIGHUP stop both servers the same way Ctrl-C does.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGHUP, _raise_interrupt)
    dist = Path(args.dist)
    ensure_built(dist)
    try:
        agent = start_agent_server(args.server_port, config=args.config,
                                   log_path=CACHE / "logs" / "agent-server.log")
    except AgentServerError as exc:
        log(str(exc))
        return 2
    port = args.port
    if port is None:
        port = 8000 if _port_free(8000) else 0
    try:
        static = serve_static(dist, port, base=args.base, verbose=args.verbose)
    except OSError as exc:
        agent.stop()
        log(f"cannot serve on port {port}: {exc}")
        return 2
    print(app_url(static.url, agent.url), flush=True)
    log(f"agent server {agent.url} (log {agent.log_path}); Ctrl-C stops both")
    code = 0
    try:
        while True:
            if not agent.alive():
                log(f"agent server died with exit code {agent.returncode}; last lines of its log:\n"
                    f"{agent.log_tail()}")
                code = 1
                break
            time.sleep(0.5)
    except KeyboardInterrupt:
        log("stopping")
    finally:
        static.stop()
        agent.stop()
    return code


# ---------------------------------------------------------------------------
# bench
# ---------------------------------------------------------------------------


def chromium_launch_args() -> dict:
    """Keyword arguments for playwright's ``chromium.launch`` on this project's machines."""
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    return {"executable_path": exe, "args": list(CHROMIUM_ARGS), "headless": True}


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2) if xs else float("nan")


def wait_js(page, expression: str, timeout: float = 120.0, interval: float = 0.05):
    """Poll ``expression`` in the page until it is truthy; return its value.

    Playwright's ``wait_for_function`` evaluates its predicate with eval(),
    which the site's CSP forbids; ``page.evaluate`` is not subject to it.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {expression}")
        time.sleep(interval)


BOOT_DONE_JS = "(window.__sitewalkBoot && (window.__sitewalkBoot.appStarted || window.__sitewalkBoot.error)) ? window.__sitewalkBoot : null"
FCP_JS = "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"


def run_bench(runs: int = 5, dist: Path = DIST, timeout: float = 180.0, with_server: bool | None = None) -> dict:
    """Measure bare Pyodide, Sitewalk cold and warm boot; return the figures (ms).

    All times are ``performance.now()`` in the page, i.e. ms since navigation
    start. Sitewalk's "interactive" is ``__sitewalkBoot.appStarted`` (the app's
    main() returned). If langgraph.json exists, a real agent server is started
    so that the app's first screen can come up; otherwise the app is pointed at
    a closed port.
    """
    from playwright.sync_api import sync_playwright

    ensure_built(dist, bench=True)
    if with_server is None:
        with_server = (ROOT / "langgraph.json").exists()
    agent = start_agent_server() if with_server else None
    static = serve_static(dist, 0)
    server_url = agent.url if agent else f"http://127.0.0.1:{free_port()}"
    url = app_url(static.url, server_url)
    keys = ["bare", "bare_python", "cold", "cold_python", "cold_packages", "cold_main",
            "cold_paint", "warm", "warm_python", "warm_packages", "warm_main"]
    results: dict[str, list[float]] = {k: [] for k in keys}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**chromium_launch_args())
            try:
                for i in range(runs):
                    ctx = browser.new_context()
                    page = ctx.new_page()
                    page.goto(static.url + "bench/bare.html", wait_until="commit")
                    bare = wait_js(page, "window.__bare && (window.__bare.done || window.__bare.error) ? window.__bare : null", timeout)
                    ctx.close()
                    if bare.get("error"):
                        raise RuntimeError(f"bare page failed: {bare['error']}")
                    results["bare"].append(bare["done"])
                    results["bare_python"].append(bare["pyodideReady"])

                    ctx = browser.new_context()
                    page = ctx.new_page()
                    page.goto(url, wait_until="commit")
                    cold = _boot_result(page, timeout)
                    results["cold"].append(cold["appStarted"])
                    results["cold_python"].append(cold["pyodideReady"])
                    results["cold_packages"].append(cold["packagesLoaded"])
                    results["cold_main"].append(cold["appStarted"] - cold["appStarting"])
                    results["cold_paint"].append(page.evaluate(FCP_JS) or float("nan"))
                    wait_js(page, "navigator.serviceWorker.controller !== null", timeout)
                    page.reload(wait_until="commit")
                    warm = _boot_result(page, timeout)
                    results["warm"].append(warm["appStarted"])
                    results["warm_python"].append(warm["pyodideReady"])
                    results["warm_packages"].append(warm["packagesLoaded"])
                    results["warm_main"].append(warm["appStarted"] - warm["appStarting"])
                    ctx.close()
                    log(f"run {i + 1}/{runs}: bare {bare['done']:.0f} ms, cold {cold['appStarted']:.0f} ms, "
                        f"warm {warm['appStarted']:.0f} ms")
            finally:
                browser.close()
    finally:
        static.stop()
        if agent:
            agent.stop()
    med = {k: _median(v) for k, v in results.items()}
    med["cold_over_bare"] = med["cold"] / med["bare"]
    med["warm_over_cold"] = med["warm"] / med["cold"]
    return {"runs": results, "median": med, "agent_server": bool(agent)}


def _boot_result(page, timeout: float) -> dict:
    boot = wait_js(page, BOOT_DONE_JS, timeout)
    if boot.get("error"):
        raise RuntimeError(f"boot failed: {boot['error']}")
    return boot


def cmd_bench(args) -> int:
    res = run_bench(args.runs, Path(args.dist))
    if not res["agent_server"]:
        print("(no langgraph.json: the app was pointed at a closed port)")
    m = res["median"]
    print(f"boot benchmark, {args.runs} runs, medians (ms from navigation start):")
    print(f"  bare Pyodide + same packages : {m['bare']:8.0f}   (python ready {m['bare_python']:.0f})")
    print(f"  Sitewalk cold (interactive)  : {m['cold']:8.0f}   (first paint {m['cold_paint']:.0f}, python ready "
          f"{m['cold_python']:.0f}, packages {m['cold_packages']:.0f}, main() {m['cold_main']:.0f})")
    print(f"  Sitewalk warm (sw cache)     : {m['warm']:8.0f}   (python ready {m['warm_python']:.0f}, "
          f"packages {m['warm_packages']:.0f}, main() {m['warm_main']:.0f})")
    print(f"  cold / bare = {m['cold_over_bare']:.2f}  (target <= 0.75)")
    print(f"  warm / cold = {m['warm_over_cold']:.2f}  (target <= 0.35)")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd")
    pb = sub.add_parser("build", help="build dist/ (default)")
    pb.add_argument("--server", default=DEFAULT_SERVER_URL, help="default agent server URL")
    pb.add_argument("--force", action="store_true", help="build even if dist/ is up to date")
    ps = sub.add_parser("serve", help="build if stale, start the agent server, serve dist/")
    ps.add_argument("--port", type=int, default=None, help="static site port (default 8000 or free)")
    ps.add_argument("--server-port", type=int, default=None, help="agent server port (default free)")
    ps.add_argument("--base", default="/", help="serve under this path prefix, e.g. /sitewalk/")
    ps.add_argument("--config", default="langgraph.json", help="agent server config")
    ps.add_argument("--verbose", action="store_true", help="log every static request")
    pe = sub.add_parser("bench", help="boot benchmark in headless Chromium")
    pe.add_argument("--runs", type=int, default=5)
    pe.add_argument("--json", default=None, help="also write the figures to this file")
    for p in (pb, ps, pe):
        p.add_argument("--dist", default=str(DIST), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cmd = args.cmd or "build"
    try:
        if cmd == "build":
            server = getattr(args, "server", DEFAULT_SERVER_URL)
            dist = Path(getattr(args, "dist", DIST))
            if getattr(args, "force", False) or is_stale(dist, server_url=server):
                build(dist, server_url=server)
            else:
                log(f"{dist.name}/ is up to date")
            return 0
        if cmd == "serve":
            return cmd_serve(args)
        if cmd == "bench":
            return cmd_bench(args)
    except BuildError as exc:
        log(f"build failed: {exc}")
        return 1
    parser.error(f"unknown command {cmd}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
