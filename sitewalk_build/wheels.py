"""The project's own browser wheel, and the pure wheels merged into the archive Python imports from in place."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitewalk_build.digests import record_hash, write_entry
from sitewalk_build.errors import BuildError
from sitewalk_build.unread import is_metadata, is_unread, metadata_headers

SITE_ARCHIVE = "site-packages.zip"  # the pure packages' code, imported in place (zipimport)
SITE_METADATA = "site-packages-metadata.zip"  # their dist-info, unpacked into site-packages
SITE_REST_ARCHIVE = "site-packages-rest.zip"  # their modules the app never imports, fetched on demand
APP_REST_ARCHIVE = "app-rest.zip"  # the app's modules a setting turns on (`lazy`), fetched at their first import


def _package_files(src_root: Path, package: str) -> list[tuple[str, bytes]]:
    """Every file of the package but caches, compiled and hidden files: package data ships with the code."""
    files = []
    for path in sorted((src_root / package).rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}:
            continue
        if path.name.startswith(".") or path.name.endswith("~"):
            continue
        files.append((path.relative_to(src_root).as_posix(), path.read_bytes()))
    return files


def _lazy(arcname: str, lazy: list[str]) -> bool:
    """Whether a file of the app is one of its `lazy` paths (a folder ends in "/")."""
    return any(arcname == path or (path.endswith("/") and arcname.startswith(path)) for path in lazy)


def build_app_rest_archive(app: dict[str, Any], src_root: Path, out: Path) -> list[str]:
    """The app's `lazy` files (modules only a setting turns on, e.g. device tracing) as an archive of their
    own, fetched by the rest finder at their first import; return the files it holds (none: no archive)."""
    lazy = list(app.get("lazy", []))
    files = [entry for package in app["packages"] for entry in _package_files(src_root, package)
             if _lazy(entry[0], lazy)]
    if not files:
        return []
    folders = sorted({"/".join(name.split("/")[:k]) + "/" for name, _ in files for k in range(1, name.count("/") + 1)})
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for folder in folders:
            info = zipfile.ZipInfo(folder, (1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o40755 << 16) | 0x10
            zf.writestr(info, b"")
        for arcname, data in files:
            write_entry(zf, arcname, data)
    return [name for name, _ in files]


def build_app_wheel(app: dict[str, Any], src_root: Path, out_dir: Path, leave_out: list[str] | None = None) -> Path:
    """Build ``<name>-<version>-py3-none-any.whl`` from ``src_root/<package>`` for each of the app's
    ``packages`` (the browser package and the models it shares with the agent), but the paths of
    ``leave_out`` (the app's `lazy` ones, shipped apart by `build_app_rest_archive`).

    Deterministic (sorted entries, fixed timestamps). Includes every file of
    the packages except caches and compiled files, so package data (*.j2,
    *.html, *.json) ships with the code.
    """
    name, version, packages = app["name"], app["version"], app["packages"]
    for package in packages:
        if not (src_root / package / "__init__.py").exists():
            raise BuildError(f"{src_root / package} is not a package (no __init__.py)")
    dist_name = re.sub(r"[-.]+", "_", name)
    info = f"{dist_name}-{version}.dist-info"
    requires = "".join(f"Requires-Dist: {d}\n" for d in app.get("depends", []))
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}".encode()
    wheel = b"Wheel-Version: 1.0\nGenerator: sitewalk-build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files = [entry for package in packages for entry in _package_files(src_root, package)
             if not _lazy(entry[0], leave_out or [])] + [
        (f"{info}/METADATA", metadata),
        (f"{info}/WHEEL", wheel),
        (f"{info}/top_level.txt", "".join(f"{package}\n" for package in packages).encode()),
    ]
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{dist_name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for arcname, data in files:
            write_entry(zf, arcname, data)
    return out


def is_pure_wheel(path: Path) -> bool:
    """A wheel Python can import from in place: purelib, no extension modules."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        wheel_meta = next((n for n in names if n.endswith(".dist-info/WHEEL")), None)
        purelib = wheel_meta is not None and b"Root-Is-Purelib: true" in zf.read(wheel_meta)
    return purelib and not any(n.endswith((".so", ".pyd", ".dylib")) for n in names)


def _merged_entries(wheels: list[tuple[dict[str, Any], Path]]) -> dict[str, tuple[str, bytes]]:
    """name -> (wheel name, bytes) over all wheels but their RECORDs; unsafe or doubled paths are errors."""
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
    return entries


def _is_metadata(name: str) -> bool:
    return name.split("/", 1)[0].endswith(".dist-info")


def build_site_archives(wheels: list[tuple[dict[str, Any], Path]], code_out: Path, metadata_out: Path) -> None:
    """Merge the contents of pure, verified wheels into two deterministic zips.

    ``code_out`` holds the packages, for zipimport. ``metadata_out`` holds
    each wheel's dist-info (but RECORD, which lists files installed on disk):
    importlib.metadata reads a dist-info on the file system cheaply, but one
    inside a zip on sys.path costs it a parse of the whole METADATA (pydantic
    scans for plugins at its first model), so it is unpacked at boot instead.
    Two wheels providing the same file is an error. What the runtime never reads is left out
    (unread.py: stubs, SBOMs, METADATA bodies).
    """
    entries = {name: (wheel, metadata_headers(data) if is_metadata(name) else data)
               for name, (wheel, data) in _merged_entries(wheels).items() if not is_unread(name)}
    parts: tuple[tuple[Path, Callable[[str], bool]], ...] = (
        (code_out, lambda n: not _is_metadata(n)),
        (metadata_out, _is_metadata),
    )
    for out, keep in parts:
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
            for name in sorted(n for n in entries if keep(n)):
                write_entry(zf, name, entries[name][1])
