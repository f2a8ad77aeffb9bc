"""`build.py build --assistant ID`: the assistant id is written into dist/config.json, next to the server URL."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitewalk_build import cli  # noqa: E402


def test_build_assistant_writes_the_assistant_id_into_config_json(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "config.json").write_text(json.dumps({"agentServerUrl": "http://127.0.0.1:2024"}))
    (dist / "config.json.gz").write_bytes(gzip.compress(b'{"agentServerUrl": "stale"}'))
    monkeypatch.setattr(cli, "is_stale", lambda *args, **kwargs: False)  # an up-to-date dist: no rebuild
    assert cli.main(["build", "--dist", str(dist), "--assistant", "example"]) == 0
    config = json.loads((dist / "config.json").read_text())
    assert config == {"agentServerUrl": "http://127.0.0.1:2024", "assistantId": "example"}
    # a host serving a precompressed sibling serves the new file too (the stale one is gone)
    gz = dist / "config.json.gz"
    assert not gz.exists() or gzip.decompress(gz.read_bytes()) == (dist / "config.json").read_bytes()
    assert cli.main(["build", "--dist", str(dist)]) == 0  # without the flag the file is left as it is
    assert json.loads((dist / "config.json").read_text())["assistantId"] == "example"
