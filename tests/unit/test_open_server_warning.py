"""An agent server without sign-in says so: one warning line at start, naming SITEWALK_TOKENS.

The auth module is what both servers (langgraph dev, Aegra) import at start, so the warning is logged
from there, once per process. Checked in a fresh interpreter each time (the module reads the
environment when it is imported), and in process for the function that decides.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitewalk_agent import auth

ROOT = Path(__file__).resolve().parents[2]
IMPORT_AUTH = ("import logging; logging.basicConfig(format='%(levelname)s %(name)s %(message)s'); "
               "import sitewalk_agent.auth")


def _start(env_tokens: str | None) -> list[str]:
    """The log lines of a fresh process that imports the auth module, as a server does at start."""
    env = {k: v for k, v in os.environ.items() if k != auth.TOKENS_ENV}
    if env_tokens is not None:
        env[auth.TOKENS_ENV] = env_tokens
    env["PYTHONPATH"] = str(ROOT / "py_src")
    done = subprocess.run([sys.executable, "-c", IMPORT_AUTH], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    return done.stderr.splitlines()


def test_a_server_without_tokens_warns_once_that_it_is_open_to_anyone():
    lines = _start(None)
    warnings = [line for line in lines if line.startswith("WARNING sitewalk_agent.auth")]
    assert warnings == [f"WARNING sitewalk_agent.auth {auth.OPEN_SERVER_WARNING}"]
    assert "open to anyone" in warnings[0] and auth.TOKENS_ENV in warnings[0]


def test_an_empty_variable_is_no_token_file_and_warns_too():
    assert any(auth.OPEN_SERVER_WARNING in line for line in _start("  "))


def test_a_server_with_a_token_file_says_nothing_of_the_kind(tmp_path):
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"ana-token-0123456789abcdef": {"identity": "ana"}}))
    assert not [line for line in _start(str(tokens)) if "sign-in is off" in line]


@pytest.mark.parametrize("value, warned", [(None, True), ("", True), ("/nonexistent/tokens.json", False)])
def test_the_decision_in_process(monkeypatch, caplog, value, warned):
    """The function the module runs at import: no file named, a warning and no tokens; a file named,
    no warning (the file itself is checked by TokenFile, tests/unit/test_token_file.py)."""
    if value is None:
        monkeypatch.delenv(auth.TOKENS_ENV, raising=False)
    else:
        monkeypatch.setenv(auth.TOKENS_ENV, value)
    with caplog.at_level(logging.WARNING, logger="sitewalk_agent.auth"):
        try:
            found = auth._tokens_from_env()
        except auth.TokenFileError:
            found = "refused"
    said = [r.getMessage() for r in caplog.records if r.name == "sitewalk_agent.auth"]
    assert said == ([auth.OPEN_SERVER_WARNING] if warned else [])
    assert (found is None) is warned
