"""The bench's bare-Pyodide baseline, outside dist/: web/bench's pages, the core's stdlib and every
wheel of the bundle exactly as downloaded (the app's own built from source), and their lock.

The bench serves it under ``/bench/`` beside dist/ (bench.py), precompressed like the site, so the
baseline is "bare Pyodide served the same way". Nothing of it ships with the site.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sitewalk_build import bundle as bundle_mod
from sitewalk_build.bundle import canonical, lock_entry, write_lock
from sitewalk_build.digests import sha256
from sitewalk_build.fetch import fetch_pyodide, fetch_wheel
from sitewalk_build.paths import CACHE, PY_SRC, WEB
from sitewalk_build.precompress import precompress
from sitewalk_build.wheels import build_app_wheel


def write_baseline(out: Path, cache: Path = CACHE) -> Path:
    """Write the baseline into ``out`` (emptied first); return it."""
    bundle = bundle_mod.load_bundle()
    core = fetch_pyodide(bundle, cache)
    info = bundle_mod.core_info(bundle, core)
    shutil.rmtree(out, ignore_errors=True)
    (out / "wheels").mkdir(parents=True)
    for page in sorted((WEB / "bench").iterdir()):
        shutil.copy2(page, out / page.name)
    shutil.copy2(core / "python_stdlib.zip", out / "python_stdlib.zip")
    archives = [(w, fetch_wheel(w, bundle, cache)) for w in bundle["wheels"]]
    archives.append((bundle["app"], build_app_wheel(bundle["app"], PY_SRC, out / "wheels")))
    packages = {}
    for spec, path in archives:
        if path.parent != out / "wheels":
            shutil.copy2(path, out / "wheels" / path.name)
        packages[canonical(spec["name"])] = lock_entry(spec, path.name, sha256(path))
    write_lock(out / "pyodide-lock.json", info, packages)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    precompress(out, files, cache)
    return out
