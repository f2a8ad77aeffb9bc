"""Where the build's inputs and outputs live (the repository root is this package's parent)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
WEB = ROOT / "web"
PY_SRC = ROOT / "py_src"
CACHE = ROOT / ".cache"
PYPROJECT = ROOT / "pyproject.toml"
# The build tooling itself: a change to it makes dist/ stale.
TOOLING = (ROOT / "build.py", Path(__file__).resolve().parent)
DEFAULT_SERVER_URL = "http://127.0.0.1:2024"
STAMP = ".build-stamp.json"
