"""When dist/ must be rebuilt: its stamp records what it was built from, the inputs say what changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sitewalk_build.bundle import load_bundle
from sitewalk_build.paths import DIST, PY_SRC, PYPROJECT, STAMP, TOOLING, WEB


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.exists():
        return []
    return [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def inputs(web: Path, app_src: Path, packages: list[str]) -> list[Path]:
    """Every file a build reads: pyproject.toml, the build tooling, web/ and the app's packages."""
    paths = [PYPROJECT]
    for root in (*TOOLING, web, *(app_src / package for package in packages)):
        paths += _files(root)
    return paths


def input_names(web: Path, app_src: Path, packages: list[str]) -> list[str]:
    """The inputs as the stamp lists them (a file added or removed makes dist/ stale)."""
    return sorted({str(p.relative_to(p.anchor)) for p in inputs(web, app_src, packages)})


def write_stamp(dist: Path, info: dict[str, Any]) -> None:
    (dist / STAMP).write_text(json.dumps(info))


def read_stamp(dist: Path) -> dict[str, Any] | None:
    """The stamp of a finished build, or None when there is none (or it is unreadable)."""
    try:
        info = json.loads((dist / STAMP).read_text())
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def is_stale(dist: Path = DIST, *, web: Path = WEB, app_src: Path = PY_SRC,
             server_url: str | None = None, assistant_id: str | None = None,
             limits: dict[str, float] | None = None, traces: bool = False) -> bool:
    """True when dist/ is missing, or an input (web/, the app's packages,
    pyproject.toml, the build tooling) is newer than it, or a different server URL,
    assistant id (None: the app's default) or run limits (config.json's streamStallSeconds,
    stuckSeconds; None or {}: none) or tracing (config.json's "traces") is asked for."""
    info = read_stamp(dist)
    if info is None:
        return True
    if server_url is not None and info.get("agentServerUrl") != server_url:
        return True
    if (info.get("assistantId") or None) != (assistant_id or None):
        return True
    if (info.get("limits") or {}) != (limits or {}):
        return True
    if bool(info.get("traces")) != traces:
        return True
    if info.get("app_src") != str(app_src.resolve()) or info.get("web") != str(web.resolve()):
        return True
    packages = load_bundle()["app"]["packages"]
    if input_names(web, app_src, packages) != info.get("inputs"):
        return True  # a file was added or removed
    built = (dist / STAMP).stat().st_mtime
    return any(p.stat().st_mtime > built for p in inputs(web, app_src, packages))
