"""The bundle's pins (``[tool.sitewalk.bundle]`` of pyproject.toml) and the Pyodide lock built from them."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from sitewalk_build.errors import BuildError
from sitewalk_build.paths import PYPROJECT

Bundle = dict[str, Any]
WHEEL_KEYS = ("name", "version", "file", "sha256", "source", "imports", "depends")


def load_bundle(pyproject: Path = PYPROJECT) -> Bundle:
    """Return ``[tool.sitewalk.bundle]`` of pyproject.toml, every wheel entry complete."""
    with open(pyproject, "rb") as fh:
        data = tomllib.load(fh)
    try:
        bundle: Bundle = data["tool"]["sitewalk"]["bundle"]
    except KeyError as exc:
        raise BuildError("pyproject.toml has no [tool.sitewalk.bundle]") from exc
    for w in bundle.get("wheels", []):
        for key in WHEEL_KEYS:
            if key not in w:
                raise BuildError(f"bundle wheel {w.get('name')!r} lacks {key!r}")
    return bundle


def canonical(name: str) -> str:
    """A distribution name as lock keys spell it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def core_info(bundle: Bundle, core: Path) -> dict[str, Any]:
    """The core lock's ``info`` block, checked against the bundle's platform and Python."""
    core_lock = json.loads((core / bundle.get("pyodide_lock", "pyodide-lock.json")).read_text())
    info: dict[str, Any] = core_lock["info"]
    if info.get("abi_version") and info["abi_version"] not in bundle["platform"]:
        raise BuildError(f"core abi {info['abi_version']} does not match platform {bundle['platform']}")
    if not str(info.get("python", "")).startswith(bundle["python"]):
        raise BuildError(f"core python {info.get('python')} is not {bundle['python']}")
    return info


def lock_entry(spec: dict[str, Any], file_name: str, sha256: str) -> dict[str, Any]:
    """One package of a Pyodide lock file, for the wheel ``file_name`` of ``spec``."""
    return {
        "name": spec["name"],
        "version": spec["version"],
        "file_name": f"wheels/{file_name}",
        "install_dir": "site",
        "sha256": sha256,
        "package_type": "package",
        "imports": list(spec["imports"]),
        "depends": [canonical(d) for d in spec["depends"]],
        "unvendored_tests": False,
    }


def check_closed(packages: dict[str, dict[str, Any]]) -> None:
    """Every dependency of a package is itself in the bundle."""
    for key, entry in packages.items():
        for dep in entry["depends"]:
            if dep not in packages:
                raise BuildError(f"{key} depends on {dep}, which is not in the bundle")


def install_order(packages: dict[str, dict[str, Any]]) -> list[str]:
    """Lock keys with every package after its dependencies (sorted otherwise); a cycle is a BuildError."""
    order: list[str] = []

    def visit(key: str, seen: tuple[str, ...] = ()) -> None:
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


def write_lock(path: Path, info: dict[str, Any], packages: dict[str, dict[str, Any]]) -> None:
    """A Pyodide lock file: the core's ``info`` and our packages."""
    path.write_text(json.dumps({"info": info, "packages": packages}, indent=1, sort_keys=True) + "\n")
