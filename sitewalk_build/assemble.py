"""The static site, assembled in named stages inside a staging folder, then swapped in for dist/.

Each stage reads what earlier ones left on the ``Site`` and adds its part. The staging folder and
the scratch folder are removed whatever happens (a failed stage leaves dist/ as it was and nothing
behind); only a finished, scanned tree replaces dist/.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitewalk_build import bundle as bundle_mod
from sitewalk_build.bundle import Bundle, canonical, check_closed, install_order, lock_entry, write_lock
from sitewalk_build.digests import sha256, sri
from sitewalk_build.errors import BuildError, log
from sitewalk_build.fetch import fetch_pyodide, fetch_wheel
from sitewalk_build.paths import CACHE, DEFAULT_SERVER_URL, DIST, PY_SRC, STAMP, WEB
from sitewalk_build.policy import connect_sources, csp, origin, scan_dist
from sitewalk_build.precompile import Job, precompile_archives
from sitewalk_build.precompress import is_sibling, precompress
from sitewalk_build.prerender import fill_first_screen, render_first_screen
from sitewalk_build.stale import input_names, is_stale, read_stamp, write_stamp
from sitewalk_build.stdlib_split import (
    FINDER_MODULE,
    REST_ARCHIVE,
    Closure,
    ClosureJob,
    finder_imports,
    import_closure,
    module_name,
    split,
)
from sitewalk_build.tools import require
from sitewalk_build.unread import trim_wheel
from sitewalk_build.wheels import (
    APP_REST_ARCHIVE,
    SITE_ARCHIVE,
    SITE_METADATA,
    SITE_REST_ARCHIVE,
    build_app_rest_archive,
    build_app_wheel,
    build_site_archives,
    is_pure_wheel,
)

Wheels = list[tuple[dict[str, Any], Path]]
BENCH_PAGES = "bench"  # web/bench: the boot benchmark's pages, served by the bench, not shipped


@dataclass
class Site:
    """One build in progress: its inputs, its folders, and what each stage has produced so far."""

    bundle: Bundle
    core: Path  # the verified Pyodide core files
    info: dict[str, Any]  # the core lock's info block
    wheels: Wheels  # the verified pinned wheels
    staging: Path  # becomes dist/
    scratch: Path  # intermediate files, never shipped
    server_url: str
    web: Path
    app_src: Path
    cache: Path
    assistant_id: str | None = None  # written into config.json (the app's default when None)
    limits: dict[str, float] = field(default_factory=dict)  # config.json's run limits (LIMIT_KEYS), as given
    traces: bool = False  # config.json's "traces": the browser traces (issue 27; `./sw serve --traces`)
    jobs: list[Job] = field(default_factory=list)  # archives waiting for bytecode
    zipped: Wheels = field(default_factory=list)  # pure wheels, merged into the site archive
    installed: Wheels = field(default_factory=list)  # installed by loadPackage (native code; the app)
    app_wheel: Path | None = None  # the project's own wheel, built from app_src
    everything: dict[str, dict[str, Any]] = field(default_factory=dict)  # every package, as downloaded
    packages: dict[str, dict[str, Any]] = field(default_factory=dict)  # the shipped lock's packages
    boot: dict[str, Any] = field(default_factory=dict)  # bundle.mjs: what boot.js loads
    closure: Closure | None = None  # what the app imports (split stdlib), None when the stdlib is not split
    stdlib_rest: dict[str, Any] = field(default_factory=dict)  # the stdlib fetched on demand (split stdlib)
    site_rest: dict[str, Any] = field(default_factory=dict)  # the pure packages fetched on demand
    app_rest: dict[str, Any] = field(default_factory=dict)  # the app's lazy modules, fetched at first import
    version: str = ""

    @property
    def app(self) -> dict[str, Any]:
        return self.bundle["app"]

    @property
    def python_dir(self) -> str:
        return self.info["python"].rsplit(".", 1)[0]  # "3.14"

    @property
    def site_packages(self) -> str:
        return f"/lib/python{self.python_dir}/site-packages"

    @property
    def site_zip_path(self) -> str:
        """Where boot.js writes the pure packages' archive; it is appended to sys.path."""
        return self.site_packages + ".zip"

    @property
    def stdlib_zip_path(self) -> str:
        return f"/lib/python{self.python_dir.replace('.', '')}.zip"

    @property
    def archives(self) -> Wheels:
        """Every wheel of the bundle as downloaded or built (before bytecode)."""
        if self.app_wheel is None:
            raise BuildError("the app wheel is not built yet (stage order)")
        return self.wheels + [(self.app, self.app_wheel)]

    @property
    def precompile(self) -> bool:
        return bool(self.bundle.get("precompile", True))

    def ship(self, src: Path, dst: Path, location: str, keep_source: bool = False, optimize: int = 0,
             class_docstrings_only: bool = False) -> None:
        """Put an archive into the site: queued for bytecode when the bundle precompiles, copied otherwise."""
        if self.precompile:
            self.jobs.append(Job(src, dst, location, keep_source, optimize, class_docstrings_only))
        else:
            shutil.copy2(src, dst)


# ---------------------------------------------------------------------------
# The stages, in order
# ---------------------------------------------------------------------------


def copy_core(site: Site) -> None:
    """The Pyodide core files; the stdlib zip waits for bytecode, without the docstrings of its modules
    and functions (about 0.1 MB brotli at boot): Python's own code, so its asserts stay, and its
    classes' docstrings too (pydantic reads a class's docstring as its description)."""
    (site.staging / "pyodide").mkdir(parents=True)
    for name in site.bundle["pyodide_files"]:
        dst = site.staging / "pyodide" / name
        if name == "python_stdlib.zip":
            site.ship(site.core / name, dst, site.stdlib_zip_path, class_docstrings_only=True)
        else:
            shutil.copy2(site.core / name, dst)


def pack_wheels(site: Site) -> None:
    """Pure wheels ship as one archive that Python imports from (zipimport): nothing of them is
    unpacked at boot. Wheels with native code (their .so must be on the file system) and the app's
    own wheel (jinja2 reads its templates from disk) are installed by loadPackage."""
    wheels_dir = site.staging / "wheels"
    wheels_dir.mkdir()
    site.zipped = [(spec, path) for spec, path in site.wheels if is_pure_wheel(path)]
    site.installed = [(spec, path) for spec, path in site.wheels if not is_pure_wheel(path)]
    site.app_wheel = build_app_wheel(site.app, site.app_src, site.scratch, leave_out=_lazy_app(site))
    site.installed.append((site.app, site.app_wheel))
    if build_app_rest_archive({**site.app, "lazy": _lazy_app(site)}, site.app_src, site.scratch / APP_REST_ARCHIVE):
        site.ship(site.scratch / APP_REST_ARCHIVE, wheels_dir / APP_REST_ARCHIVE, _app_rest_path(site),
                  optimize=0, class_docstrings_only=True)
    site_src = site.scratch / SITE_ARCHIVE
    build_site_archives(site.zipped, site_src, wheels_dir / SITE_METADATA)
    keep = site.bundle.get("keep_source", [])
    for spec, path in site.installed:
        kept = spec["name"] in keep
        shipped = path if spec is site.app else trim_wheel(path, site.scratch / "trimmed" / path.name)
        site.ship(shipped, wheels_dir / path.name, site.site_packages, kept, _optimize(site, spec, kept),
                  class_docstrings_only=spec is site.app)
    site.ship(site_src, wheels_dir / SITE_ARCHIVE, site.site_zip_path, optimize=THIRD_PARTY_OPTIMIZE)


def _lazy_app(site: Site) -> list[str]:
    """The app's `lazy` paths, shipped apart from its wheel; none when the stdlib is not split (the rest finder,
    which fetches them, lives in the split stdlib's boot archive)."""
    return list(site.app.get("lazy", [])) if site.bundle.get("split_stdlib", True) else []


def _app_rest_path(site: Site) -> str:
    return site.site_packages + "-app-rest.zip"


def describe_app_rest(site: Site) -> None:
    """What boot.js needs to install the finder of the app's lazy modules (their archive is compiled now)."""
    shipped = site.staging / "wheels" / APP_REST_ARCHIVE
    if not shipped.exists():
        return
    with zipfile.ZipFile(shipped) as zf:
        modules = sorted(n for name in zf.namelist() if (n := module_name(name)))
    site.app_rest = {"file": f"wheels/{APP_REST_ARCHIVE}", "sha256": sha256(shipped), "path": _app_rest_path(site),
                     "finder": FINDER_MODULE, "modules": modules}
    log(f"{APP_REST_ARCHIVE}: {shipped.stat().st_size / 1e3:.1f} KB on demand ({', '.join(_lazy_app(site))})")


# Third-party Python (the pure packages, pydantic-core's Python files) is compiled without docstrings
# and asserts: nothing of theirs reads them at run time, and their bytecode is about 14 % smaller
# (brotli). Not the app: pydantic turns its models' docstrings into the JSON-schema descriptions the
# tool manifest sends to the server (registry.manifest()): its modules' and functions' docstrings,
# which nothing reads, are dropped, its classes' kept. Not the stdlib either: Python's own.
THIRD_PARTY_OPTIMIZE = 2


def _optimize(site: Site, spec: dict[str, Any], kept: bool) -> int:
    return 0 if kept or spec is site.app else THIRD_PARTY_OPTIMIZE


def compile_bytecode(site: Site) -> None:
    """Every queued archive compiled in one run of Pyodide under node."""
    if site.jobs:
        precompile_archives(site.jobs, site.core, site.bundle, site.cache)


def split_stdlib(site: Site) -> None:
    """The stdlib the app imports (found by importing it, stdlib_split.py) stays the boot archive;
    the rest becomes a second archive, fetched by the finder the boot archive carries when an
    import needs it."""
    if not site.bundle.get("split_stdlib", True):
        return
    # The closure run does what the boot does (loadPackage of the installed wheels, the metadata
    # unpacked), so Pyodide's own Python side counts by what that imports; the wheels with their
    # sources, which the AST pass reads.
    wheels = [path for spec, path in site.installed]
    job = ClosureJob([site.scratch / SITE_ARCHIVE], wheels, site.app["imports"] + finder_imports(),
                     site.scratch / SITE_ARCHIVE, unpack=[site.staging / "wheels" / SITE_METADATA],
                     site_packages=site.site_packages, not_at_boot=site.bundle.get("not_at_boot", []))
    site.closure = import_closure(job, site.core, site.cache)
    site.stdlib_rest = _split_archive(site, site.staging / "pyodide" / "python_stdlib.zip", site.closure.stdlib,
                                      site.staging / "pyodide" / REST_ARCHIVE, site.stdlib_zip_path, finder=True)


def split_site_packages(site: Site) -> None:
    """The pure packages' modules the app imports stay the boot archive (with the data files of their
    folders); the rest (pydantic.v1, its mypy plugin, micropip...) becomes a second archive, fetched
    by the same finder when an import needs it. Needs the split stdlib (the finder lives there)."""
    if site.closure is None:
        return
    wheels_dir = site.staging / "wheels"
    site.site_rest = _split_archive(site, wheels_dir / SITE_ARCHIVE, site.closure.site,
                                    wheels_dir / SITE_REST_ARCHIVE, site.site_zip_path, finder=False)


def _split_archive(site: Site, shipped: Path, needed: list[str], rest: Path, boot_path: str,
                   finder: bool) -> dict[str, Any]:
    """Cut a shipped archive in two in place; return what boot.js needs to install the rest's finder."""
    whole = site.scratch / (shipped.stem + "_whole.zip")
    shutil.move(shipped, whole)
    modules = split(whole, needed, shipped, rest, finder=finder, data_follows=not finder)
    log(f"{shipped.name}: {shipped.stat().st_size / 1e6:.1f} MB at boot, {rest.stat().st_size / 1e6:.1f} MB "
        f"on demand ({whole.stat().st_size / 1e6:.1f} MB whole)")
    return {"file": rest.relative_to(site.staging).as_posix(), "sha256": sha256(rest),
            "path": boot_path.removesuffix(".zip") + "-rest.zip", "finder": FINDER_MODULE, "modules": modules}


def write_pyodide_lock(site: Site) -> None:
    """Every package of the bundle, with its full dependencies (the install order, and the bare
    baseline's lock); the lock Sitewalk ships lists the installed wheels only, their dependencies
    on archived packages being met by the archive on sys.path."""
    site.everything = {canonical(spec["name"]): lock_entry(spec, path.name, sha256(path))
                       for spec, path in site.archives}
    check_closed(site.everything)
    in_archive = {canonical(spec["name"]) for spec, _ in site.zipped}
    for spec, path in site.installed:
        key = canonical(spec["name"])
        site.packages[key] = dict(site.everything[key], sha256=sha256(site.staging / "wheels" / path.name),
                                  depends=[d for d in site.everything[key]["depends"] if d not in in_archive])
    write_lock(site.staging / "pyodide-lock.json", site.info, site.packages)


def copy_web(site: Site) -> None:
    """The files of web/ as they are (index.html is filled in by a later stage), but web/bench: the
    benchmark's own pages, which the bench serves from web/ (bench.py), never part of the site."""
    if not (site.web / "index.html").exists():
        raise BuildError(f"{site.web}/index.html is missing")
    for path in sorted(site.web.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.relative_to(site.web).parts[0] == BENCH_PAGES:
            continue
        out = site.staging / path.relative_to(site.web)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)


def describe_boot(site: Site) -> None:
    """What boot.js loads (bundle.mjs, written once its version is known) and config.json."""
    order = install_order(site.everything)
    archived = {canonical(spec["name"]) for spec, _ in site.zipped}
    wheels_dir = site.staging / "wheels"
    site.boot = {
        "version": "",  # the version of the whole site, filled in by stamp_version
        "pyodide": site.bundle["pyodide"],
        "packages": order,  # every package of the bundle, in install order
        "wheels": [key for key in order if key in site.packages],  # installed by pyodide.loadPackage
        "archive": {  # fetched by boot.js (subresource integrity) and imported from in place
            "file": f"wheels/{SITE_ARCHIVE}",
            "integrity": sri(wheels_dir / SITE_ARCHIVE),
            "path": site.site_zip_path,
            "metadata": f"wheels/{SITE_METADATA}",  # unpacked into site_packages
            "metadataIntegrity": sri(wheels_dir / SITE_METADATA),
            "sitePackages": site.site_packages,
            "packages": [key for key in order if key in archived],
        },
        "entry": site.app.get("entry", "sitewalk.app"),
        "stdlibRest": site.stdlib_rest or None,  # fetched on demand by the finder (split_stdlib)
        "sitePackagesRest": site.site_rest or None,  # likewise (split_site_packages)
        "appRest": site.app_rest or None,  # the app's lazy modules, likewise (describe_app_rest)
    }
    # connectSrc: the CSP's list, so the app can tell a ?server= the browser would block (site_policy.py).
    config: dict[str, Any] = {"agentServerUrl": site.server_url, "connectSrc": connect_sources(site.server_url)}
    if site.assistant_id:  # an input of the build like the server URL: precached with the rest
        config["assistantId"] = site.assistant_id
    config.update(site.limits)  # streamStallSeconds, stuckSeconds: checked by the CLI (sitewalk.base.seconds)
    if site.traces:  # absent = off: the browser then loads no tracing code at all
        config["traces"] = True
    (site.staging / "config.json").write_text(json.dumps(config, indent=1) + "\n")


def fill_index(site: Site) -> None:
    """index.html gets its CSP and a preload of every fetch the boot needs.

    Preloads start them at once, while the scripts compile and Python starts: Pyodide then finds
    them in the preload cache. Wheels are fetched by Pyodide with subresource integrity; Chromium
    ignores integrity on as=fetch preloads and still reuses them (checked: one request per file),
    and verifies the hash when Pyodide consumes them.
    """
    preload = [  # in the order the boot needs them (the rest of the stdlib is never preloaded)
        '<link rel="modulepreload" href="bundle.mjs">',
        '<link rel="preload" href="config.json" as="fetch" crossorigin>',
        '<link rel="modulepreload" href="pyodide/pyodide.mjs">',
        '<link rel="modulepreload" href="pyodide/pyodide.asm.mjs">',
        '<link rel="preload" href="pyodide/pyodide.asm.wasm" as="fetch" crossorigin>',
        '<link rel="preload" href="pyodide/python_stdlib.zip" as="fetch" crossorigin>',
        '<link rel="preload" href="pyodide-lock.json" as="fetch" crossorigin>',
    ]
    archive = site.boot["archive"]
    fetched = [archive["file"], archive["metadata"]] + [site.packages[k]["file_name"] for k in site.boot["wheels"]]
    preload += [f'<link rel="preload" href="{href}" as="fetch" crossorigin>' for href in fetched]
    index = site.staging / "index.html"
    html = index.read_text().replace("%SITEWALK_CSP%", csp(site.server_url))
    index.write_text(html.replace("<!--SITEWALK:PRELOAD-->", "\n  ".join(preload)))


def prerender(site: Site) -> None:
    """The first screen rendered into index.html (sitewalk_build/prerender.py)."""
    fill_first_screen(site.staging / "index.html", render_first_screen(site.app_src))


def served_files(staging: Path) -> list[str]:
    """What the service worker precaches: everything but itself, the stamp and the precompressed
    siblings (the browser asks for x and the server answers with x.br: the worker stores x)."""
    skip = {"sw.js", STAMP}
    return [rel for p in sorted(staging.rglob("*"))
            if not p.is_dir() and (rel := p.relative_to(staging).as_posix()) not in skip and not is_sibling(rel)]


def stamp_version(site: Site) -> None:
    """The version is a hash of everything the service worker will serve (bundle.mjs, which carries
    it, excepted); then bundle.mjs is written."""
    h = hashlib.sha256()
    for rel in served_files(site.staging):
        if rel != "bundle.mjs":
            h.update(rel.encode() + b"\0" + sha256(site.staging / rel).encode() + b"\n")
    site.version = site.boot["version"] = h.hexdigest()[:16]
    (site.staging / "bundle.mjs").write_text(
        "// Generated by build.py: what the boot script loads. Do not edit.\n"
        f"export default {json.dumps(site.boot, indent=1)};\n"
    )


def fill_precache(site: Site) -> None:
    """sw.js gets its precache manifest: each file with its subresource integrity, so the service
    worker stores exactly what was built, or nothing (a corrupt file fails its install; a lazy file
    whose bytes differ is passed to the page, which refuses it, and not stored)."""
    sw = site.staging / "sw.js"
    if not sw.exists():
        return
    lazy = [rest["file"] for rest in (site.stdlib_rest, site.site_rest, site.app_rest) if rest]  # when first fetched
    files = [rel for rel in served_files(site.staging) if rel not in lazy]
    integrity = {rel: sri(site.staging / rel) for rel in [*files, *lazy]}
    integrity["./"] = integrity["index.html"]
    manifest = {"version": site.version, "files": ["./"] + files, "lazy": lazy, "integrity": integrity}
    new, n = re.subn(r"/\*__PRECACHE__\*/.*?/\*__END__\*/",
                     lambda m: "/*__PRECACHE__*/" + json.dumps(manifest) + "/*__END__*/",
                     sw.read_text(), flags=re.S)
    if n != 1:
        raise BuildError("web/sw.js lacks the /*__PRECACHE__*/.../*__END__*/ marker")
    sw.write_text(new)


def compress_siblings(site: Site) -> None:
    """Every file the browser may fetch gets its .br and .gz siblings where they are smaller."""
    files = [rel for rel in served_files(site.staging) + ["sw.js"] if (site.staging / rel).exists()]
    precompress(site.staging, files, site.cache)


def check_origins(site: Site) -> None:
    """Nothing in the site refers to a foreign origin."""
    problems = scan_dist(site.staging, site.server_url)
    if problems:
        raise BuildError("dist would reference foreign origins:\n  " + "\n  ".join(problems))


def write_build_stamp(site: Site) -> None:
    """What this dist/ was built from (is_stale reads it)."""
    write_stamp(site.staging, {
        "version": site.version,
        "agentServerUrl": site.server_url,
        "assistantId": site.assistant_id,
        "limits": site.limits,
        "traces": site.traces,
        "app_src": str(site.app_src.resolve()),
        "web": str(site.web.resolve()),
        "inputs": input_names(site.web, site.app_src, site.app["packages"]),
    })


Stage = Callable[[Site], None]
STAGES: list[tuple[str, Stage]] = [
    ("copy core", copy_core),
    ("pack wheels", pack_wheels),
    ("compile bytecode", compile_bytecode),
    ("split stdlib", split_stdlib),
    ("split site packages", split_site_packages),
    ("describe app rest", describe_app_rest),
    ("write lock", write_pyodide_lock),
    ("copy web", copy_web),
    ("describe boot", describe_boot),
    ("fill index", fill_index),
    ("prerender first screen", prerender),
    ("stamp version", stamp_version),
    ("fill precache", fill_precache),
    ("precompress", compress_siblings),
    ("check origins", check_origins),
    ("write stamp", write_build_stamp),
]


# ---------------------------------------------------------------------------
# build / ensure_built
# ---------------------------------------------------------------------------


@contextlib.contextmanager
def build_lock(cache: Path = CACHE) -> Iterator[None]:
    """Serialize builds of this checkout (tests and developers build concurrently)."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "build.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def _folder(parent: Path, prefix: str) -> Iterator[Path]:
    """A fresh folder under ``parent``, removed on the way out whatever happened."""
    path = Path(tempfile.mkdtemp(dir=parent, prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _swap_in(staging: Path, dist: Path) -> None:
    """Replace dist/ with the finished tree; a server serving the old one keeps working until then."""
    with _folder(dist.parent, f".{dist.name}-old-") as old:
        if dist.exists():
            os.replace(dist, old / dist.name)
        os.replace(staging, dist)


def build(dist: Path = DIST, **kwargs: Any) -> Path:
    """Build the static site into ``dist``; return its path. See build_unlocked."""
    with build_lock(kwargs.get("cache", CACHE)):
        return build_unlocked(dist, **kwargs)


def build_unlocked(dist: Path = DIST, *, server_url: str = DEFAULT_SERVER_URL, web: Path = WEB,
                   app_src: Path = PY_SRC, cache: Path = CACHE, quiet: bool = False,
                   assistant_id: str | None = None, limits: dict[str, float] | None = None,
                   traces: bool = False) -> Path:
    """Build the static site into ``dist``; return its path.

    Raises BuildError on a hash mismatch, a missing input or a reference to a
    foreign origin in the output.
    """
    t0 = time.monotonic()
    origin(server_url)
    require("node", "to run Pyodide at build time")  # said before minutes of downloads, not after
    bundle = bundle_mod.load_bundle()
    core = fetch_pyodide(bundle, cache)
    info = bundle_mod.core_info(bundle, core)
    wheels = [(w, fetch_wheel(w, bundle, cache)) for w in bundle["wheels"]]
    cache.mkdir(parents=True, exist_ok=True)
    dist.parent.mkdir(parents=True, exist_ok=True)
    with _folder(dist.parent, f".{dist.name}-staging-") as staging, _folder(cache, "scratch-") as scratch:
        os.chmod(staging, 0o755)
        site = Site(bundle, core, info, wheels, staging, scratch, server_url, web, app_src, cache,
                    assistant_id=assistant_id, limits=dict(limits or {}), traces=traces)
        for _, stage in STAGES:
            stage(site)
        _swap_in(staging, dist)
    if not quiet:
        files = served_files(dist)
        total = sum((dist / rel).stat().st_size for rel in files)
        log(f"built {dist.name}/ version {site.version}: {len(files)} files, {total / 1e6:.1f} MB, "
            f"{time.monotonic() - t0:.1f} s")
    return dist


def ensure_built(dist: Path = DIST, **kwargs: Any) -> Path:
    """Build dist/ if it is stale; return its path.

    Takes build()'s keyword arguments; a rebuild keeps the agent server URL, the
    assistant id and the run limits of the previous build unless told otherwise (tracing is off unless
    `traces=True` is asked for: it is never kept).
    """
    with build_lock(kwargs.get("cache", CACHE)):
        previous = read_stamp(dist) or {}
        if "agentServerUrl" in previous:
            kwargs.setdefault("server_url", previous["agentServerUrl"])
            kwargs.setdefault("assistant_id", previous.get("assistantId"))
            kwargs.setdefault("limits", previous.get("limits") or {})
        if is_stale(dist, web=kwargs.get("web", WEB), app_src=kwargs.get("app_src", PY_SRC),
                    server_url=kwargs.get("server_url"),
                    assistant_id=kwargs.get("assistant_id"), limits=kwargs.get("limits"),
                    traces=bool(kwargs.get("traces"))):
            return build_unlocked(dist, **kwargs)
        return dist
