"""`build.py build --stream-stall-seconds N --stuck-seconds N`: the run limits are inputs of the build.

They are written into dist/config.json before the service worker's precache list takes its integrity,
the stale-build check compares them (another value rebuilds, none keeps the last build's, "" drops one),
and a value the app would refuse (`sitewalk.base.seconds`, the rule of `session/stuck_limits.py`) is a
usage error: exit 2, nothing built. That the app uses a built-in stuckSeconds:
tests/e2e/test_static_site.py::test_a_site_built_with_stuck_seconds_uses_them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from test_cli_assistant import config, integrity, precache  # noqa: E402

from sitewalk.session.stuck_limits import stall_limit, stuck_policy  # noqa: E402
from sitewalk_build import cli  # noqa: E402
from sitewalk_build.stale import is_stale, read_stamp  # noqa: E402


def test_each_limit_is_built_in_before_the_workers_integrity_list_and_the_app_reads_it(tmp_path):
    dist = tmp_path / "dist"
    assert cli.main(["build", "--dist", str(dist), "--stuck-seconds", "7", "--stream-stall-seconds", "45"]) == 0
    built = config(dist)
    assert (built["stuckSeconds"], built["streamStallSeconds"]) == (7, 45)
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")
    assert read_stamp(dist)["limits"] == {"stuckSeconds": 7, "streamStallSeconds": 45}
    # what the app makes of them (boot.js hands both over as read): used, nothing said
    policy, problems = stuck_policy(None, built["stuckSeconds"])
    assert (policy.quiet_s, policy.confirm_s, problems) == (7.0, 3.5, [])
    assert stall_limit(None, built["streamStallSeconds"]) == (45.0, [])


def test_a_changed_limit_rebuilds_and_a_missing_option_keeps_the_last_one(tmp_path):
    dist = tmp_path / "dist"
    assert cli.main(["build", "--dist", str(dist), "--stuck-seconds", "7"]) == 0
    server, version = config(dist)["agentServerUrl"], precache(dist)["version"]
    assert not is_stale(dist, server_url=server, limits={"stuckSeconds": 7})
    assert is_stale(dist, server_url=server, limits={"stuckSeconds": 8})
    assert is_stale(dist, server_url=server, limits={})
    assert is_stale(dist, server_url=server, limits={"stuckSeconds": 7, "streamStallSeconds": 30})

    assert cli.main(["build", "--dist", str(dist)]) == 0  # without the options: kept, nothing rebuilt
    assert config(dist)["stuckSeconds"] == 7 and precache(dist)["version"] == version

    assert cli.main(["build", "--dist", str(dist), "--stream-stall-seconds", "30"]) == 0  # one more: rebuilt
    assert (config(dist)["stuckSeconds"], config(dist)["streamStallSeconds"]) == (7, 30)
    assert precache(dist)["version"] != version
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")

    assert cli.main(["build", "--dist", str(dist), "--stuck-seconds", ""]) == 0  # dropped: the app's default
    assert "stuckSeconds" not in config(dist) and config(dist)["streamStallSeconds"] == 30
    assert precache(dist)["integrity"]["config.json"] == integrity(dist / "config.json")


@pytest.mark.parametrize("option", ["--stuck-seconds", "--stream-stall-seconds"])
@pytest.mark.parametrize("value", ["soon", "0", "-3", "nan", "inf", "0.5", "3601"])
def test_a_value_the_app_would_refuse_is_a_usage_error_and_nothing_is_written(tmp_path, capsys, option, value):
    dist = tmp_path / "dist"
    with pytest.raises(SystemExit) as exit_:
        cli.main(["build", "--dist", str(dist), option, value])
    assert exit_.value.code == 2
    assert f"argument {option}: {option} is {value!r}: it must be a number of seconds from 1 to 3600" \
        in capsys.readouterr().err
    assert not dist.exists()  # nothing built, nothing written


def test_build_py_runs_outside_the_projects_venv():
    """build.py checks the limits with the app's rule from py_src: it must find it without the venv's .pth
    (`-S`: no site-packages at all), as `python3 build.py build` on a bare machine does."""
    import subprocess

    done = subprocess.run([sys.executable, "-S", str(ROOT / "build.py"), "build", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--stuck-seconds" in done.stdout
