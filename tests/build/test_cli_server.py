"""`build.py build` without `--server` keeps the previous build's server, as it keeps `--assistant`.

It once went back to the default server: `./sw build` after a production build (`--server https://...`)
silently rebuilt the site for the loopback server. `--server ""` asks for the default server.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from test_cli_assistant import config, integrity, precache  # noqa: E402

from sitewalk_build import cli  # noqa: E402
from sitewalk_build.paths import DEFAULT_SERVER_URL  # noqa: E402
from sitewalk_build.stale import read_stamp  # noqa: E402

PRODUCTION = "https://agents.example.org"


def test_a_build_without_server_keeps_the_previous_builds_server(tmp_path):
    dist = tmp_path / "dist"
    assert cli.main(["build", "--dist", str(dist), "--server", PRODUCTION]) == 0
    assert config(dist)["agentServerUrl"] == PRODUCTION and read_stamp(dist)["agentServerUrl"] == PRODUCTION
    version = precache(dist)["version"]

    assert cli.main(["build", "--dist", str(dist)]) == 0  # without the flag: kept, nothing rebuilt
    assert config(dist)["agentServerUrl"] == PRODUCTION and precache(dist)["version"] == version

    assert cli.main(["build", "--dist", str(dist), "--server", ""]) == 0  # "": the default server, rebuilt
    assert config(dist)["agentServerUrl"] == DEFAULT_SERVER_URL and precache(dist)["version"] != version
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")


def test_a_first_build_without_server_is_for_the_default_server(tmp_path):
    dist = tmp_path / "dist"
    assert cli.main(["build", "--dist", str(dist)]) == 0
    assert config(dist)["agentServerUrl"] == DEFAULT_SERVER_URL
