"""The pinned inputs of the bundle, downloaded into the cache and verified against their hashes.

The Pyodide core comes from ``npm pack`` (checked against npm's integrity), the wheels from pip
(checked against the sha256 in pyproject). A cached file is used only while its hash still matches.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from sitewalk_build.bundle import Bundle
from sitewalk_build.digests import npm_integrity, run, sha256
from sitewalk_build.errors import BuildError, log
from sitewalk_build.paths import CACHE
from sitewalk_build.tools import require

WheelSpec = dict[str, Any]


def fetch_pyodide(bundle: Bundle, cache: Path = CACHE) -> Path:
    """Return a directory holding the verified Pyodide core files."""
    version = bundle["pyodide"]
    integrity = bundle["pyodide_integrity"]
    tgz = cache / "npm" / f"pyodide-{version}.tgz"
    if not tgz.exists() or npm_integrity(tgz) != integrity:
        _npm_pack(f"pyodide@{version}", tgz)
    actual = npm_integrity(tgz)
    if actual != integrity:
        raise BuildError(f"pyodide tarball integrity mismatch: expected {integrity}, got {actual}")
    core = cache / f"pyodide-{version}-{hashlib.sha256(integrity.encode()).hexdigest()[:12]}"
    wanted = list(bundle["pyodide_files"]) + [bundle.get("pyodide_lock", "pyodide-lock.json")]
    if not all((core / f).exists() for f in wanted):
        _extract(tgz, wanted, core)
    return core


def _npm_pack(package: str, tgz: Path) -> None:
    npm = require("npm", f"to download {package} (npm pack)")
    log(f"downloading {package} (npm pack)")
    tgz.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tgz.parent) as tmp:
        run([npm, "pack", package, "--silent", "--pack-destination", tmp])
        got = Path(tmp) / tgz.name
        if not got.exists():
            raise BuildError(f"npm pack did not produce {got.name}")
        os.replace(got, tgz)


def _extract(tgz: Path, names: list[str], core: Path) -> None:
    """Unpack ``package/<name>`` of the tarball into ``core`` (whole or not at all)."""
    tmp = core.with_name(core.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(tgz) as tar:
        for name in names:
            src = tar.extractfile(tar.getmember(f"package/{name}"))
            if src is None:
                raise BuildError(f"{name} missing from the pyodide tarball")
            with open(tmp / name, "wb") as dst:
                shutil.copyfileobj(src, dst)
    shutil.rmtree(core, ignore_errors=True)
    os.replace(tmp, core)


def _pip() -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def fetch_wheel(spec: WheelSpec, bundle: Bundle, cache: Path = CACHE) -> Path:
    """Return the cached, sha256-verified wheel described by ``spec``."""
    dest = cache / "wheels" / spec["file"]
    if dest.exists() and sha256(dest) == spec["sha256"]:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    getter = _GETTERS.get(spec["source"])
    if getter is None:
        raise BuildError(f"unknown wheel source {spec['source']!r} for {spec['name']}")
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        tmpd = Path(tmp)
        getter(spec, bundle, tmpd)
        got = tmpd / spec["file"]
        if not got.exists():
            raise BuildError(f"pip did not produce {spec['file']} (got {sorted(os.listdir(tmp))})")
        actual = sha256(got)
        if actual != spec["sha256"]:
            raise BuildError(f"sha256 mismatch for {spec['file']}: pyproject says {spec['sha256']}, got {actual}")
        os.replace(got, dest)
    return dest


def _requirement(spec: WheelSpec) -> str:
    return f"{spec['name']}=={spec['version']}"


def _download(tmpd: Path) -> list[str]:
    return _pip() + ["download", "--no-deps", "-q", "-d", str(tmpd)]


def _get_emscripten(spec: WheelSpec, bundle: Bundle, tmpd: Path) -> None:
    """A binary wheel for the Pyodide platform."""
    log(f"downloading {_requirement(spec)} for {bundle['platform']}")
    run(_download(tmpd) + [
        "--only-binary=:all:", "--platform", bundle["platform"],
        "--python-version", bundle["python"], "--implementation", "cp",
        "--abi", bundle["abi"], _requirement(spec),
    ])


def _get_pypi(spec: WheelSpec, bundle: Bundle, tmpd: Path) -> None:
    """A pure wheel as published."""
    log(f"downloading {_requirement(spec)}")
    run(_download(tmpd) + ["--only-binary=:all:", "--python-version", bundle["python"], _requirement(spec)])


def _get_sdist_pure(spec: WheelSpec, bundle: Bundle, tmpd: Path) -> None:
    """A pure wheel built from the pinned sdist: no compiler, fixed epoch and build backend (reproducible)."""
    log(f"building {_requirement(spec)} as a pure wheel from its sdist")
    run(_download(tmpd) + ["--no-binary=:all:", _requirement(spec)])
    sdist = tmpd / spec["sdist"]
    if not sdist.exists() or sha256(sdist) != spec["sdist_sha256"]:
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
    run(_pip() + ["wheel", "--no-deps", "-q", "--no-binary=:all:", "-w", str(out), str(sdist)], env=env)
    built = out / spec["file"]
    if not built.exists():
        raise BuildError(f"building {_requirement(spec)} did not yield {spec['file']}: {os.listdir(out)}")
    os.replace(built, tmpd / spec["file"])


_GETTERS = {"emscripten": _get_emscripten, "pypi": _get_pypi, "sdist-pure": _get_sdist_pure}
