"""Runs a script of tests/js under node against `@json-render/core`, for the differential tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "tests" / "js"


def json_render_verdicts(script: str, files: list[Path]) -> dict[str, dict]:
    """The script's JSON line per file, keyed by its "file"; skips without node (fails instead when
    SITEWALK_REQUIRE_NODE=1, as `./sw test` sets it: CI must not pass without these checks), fails
    without the package."""
    node = shutil.which("node")
    if node is None:
        reason = "node is not installed: the differential test against @json-render/core needs it"
        if os.environ.get("SITEWALK_REQUIRE_NODE") == "1":
            pytest.fail(reason + " (SITEWALK_REQUIRE_NODE=1)")
        pytest.skip(reason)
    if not (JS / "node_modules" / "@json-render" / "core").is_dir():
        pytest.fail("@json-render/core is not installed in tests/js: run ./sw test (or npm ci --prefix tests/js)")
    done = subprocess.run([node, str(JS / script), *map(str, files)], cwd=JS,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {v["file"]: v for v in map(json.loads, done.stdout.splitlines())}
