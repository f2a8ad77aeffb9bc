"""`build.py build --assistant ID`: the assistant id is an input of the build, like the server URL.

It is written into dist/config.json BEFORE the service worker's precache list takes each file's
integrity, so the worker still installs (its check of config.json passes); the stale-build check
compares it, so asking for another assistant rebuilds. The offline boot of such a site:
tests/e2e/test_static_site.py::test_a_site_built_for_an_assistant_installs_its_worker_and_boots_offline.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitewalk_build import cli  # noqa: E402
from sitewalk_build.stale import is_stale, read_stamp  # noqa: E402


def precache(dist: Path) -> dict:
    found = re.search(r"/\*__PRECACHE__\*/(.*?)/\*__END__\*/", (dist / "sw.js").read_text(), re.S)
    assert found is not None, "sw.js has no precache manifest"
    return json.loads(found.group(1))


def integrity(path: Path) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode()


def config(dist: Path) -> dict:
    return json.loads((dist / "config.json").read_text())


def test_the_assistant_id_is_built_in_before_the_workers_integrity_list(tmp_path):
    dist = tmp_path / "dist"
    assert cli.main(["build", "--dist", str(dist), "--assistant", "example"]) == 0
    assert config(dist)["assistantId"] == "example"
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")
    assert read_stamp(dist)["assistantId"] == "example"
    version = precache(dist)["version"]

    assert not is_stale(dist, server_url=config(dist)["agentServerUrl"], assistant_id="example")
    assert is_stale(dist, server_url=config(dist)["agentServerUrl"], assistant_id="inspection")
    assert is_stale(dist, server_url=config(dist)["agentServerUrl"], assistant_id=None)

    assert cli.main(["build", "--dist", str(dist)]) == 0  # without the flag: kept, nothing rebuilt
    assert config(dist)["assistantId"] == "example" and precache(dist)["version"] == version

    assert cli.main(["build", "--dist", str(dist), "--assistant", "whoami"]) == 0  # another one: rebuilt
    assert config(dist)["assistantId"] == "whoami" and precache(dist)["version"] != version
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")

    assert cli.main(["build", "--dist", str(dist), "--assistant", ""]) == 0  # dropped: the app's default
    assert "assistantId" not in config(dist)
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")
    # a host serving a precompressed sibling serves the new file too (no stale sibling is left)
    gz = dist / "config.json.gz"
    assert not gz.exists() or gzip.decompress(gz.read_bytes()) == (dist / "config.json").read_bytes()
