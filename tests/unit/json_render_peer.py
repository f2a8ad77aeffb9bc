"""Runs a script of tests/js under node against its npm peer, for the differential tests (`require_node`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "tests" / "js"


def require_node(peer: str) -> str:
    """The path of node; without it the test skips, or fails when SITEWALK_REQUIRE_NODE=1 (as `./sw test`
    sets it: CI must not pass without the differential tests against `peer`)."""
    node = shutil.which("node")
    if node is None:
        reason = f"node is not installed: the differential test against {peer} needs it"
        if os.environ.get("SITEWALK_REQUIRE_NODE") == "1":
            pytest.fail(reason + " (SITEWALK_REQUIRE_NODE=1)")
        pytest.skip(reason)
    return node


def json_render_verdicts(script: str, files: list[Path]) -> dict[str, dict]:
    """The script's JSON line per file, keyed by its "file"; without node see `require_node`; fails
    without the package."""
    node = require_node("@json-render/core")
    if not (JS / "node_modules" / "@json-render" / "core").is_dir():
        pytest.fail("@json-render/core is not installed in tests/js: run ./sw test (or npm ci --prefix tests/js)")
    done = subprocess.run([node, str(JS / script), *map(str, files)], cwd=JS,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {v["file"]: v for v in map(json.loads, done.stdout.splitlines())}
