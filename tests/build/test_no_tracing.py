"""LangSmith tracing is off for the agent servers Sitewalk starts, and a caller who turned it on is told so.

The servers send nothing outside the machine; `LANGSMITH_TRACING=true` in the developer's environment was
once turned off without a word (sitewalk_build/no_tracing.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitewalk_build import no_tracing  # noqa: E402
from sitewalk_build.agent_server import agent_server_env  # noqa: E402
from sitewalk_build.durable import AegraSettings, aegra_env  # noqa: E402

SAID = ("[sitewalk] LANGSMITH_TRACING=true in your environment is turned off for the agent server: Sitewalk's "
        "servers send nothing outside the machine (run `langgraph dev` yourself to trace)")


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch):
    """Each test as a process of its own: nothing said yet, no tracing variable of the machine's."""
    monkeypatch.setattr(no_tracing, "_said", set())
    for name in no_tracing.TRACING_VARIABLES:
        monkeypatch.delenv(name, raising=False)


ENVS = {"langgraph dev": agent_server_env,
        "aegra": lambda: aegra_env(AegraSettings(database_url="postgresql://127.0.0.1/x"), 1)}


def both_envs() -> list[dict[str, str]]:
    return [make() for make in ENVS.values()]


@pytest.mark.parametrize("server", ENVS)
def test_tracing_asked_for_is_turned_off_and_said_once(monkeypatch, capsys, server):
    monkeypatch.setenv("LANGSMITH_TRACING", "True")
    for _ in range(2):  # a second server of the same process: off again, not said again
        env = ENVS[server]()
        assert env["LANGSMITH_TRACING"] == "false" and env["LANGCHAIN_TRACING_V2"] == "false"
    assert capsys.readouterr().err.splitlines() == [SAID]


def test_the_older_name_is_said_too(monkeypatch, capsys):
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "true")
    assert all(env["LANGCHAIN_TRACING_V2"] == "false" for env in both_envs())
    assert capsys.readouterr().err.splitlines() == [SAID.replace("LANGSMITH_TRACING=", "LANGCHAIN_TRACING_V2=")]


@pytest.mark.parametrize("value", [None, "false", ""])
def test_nothing_is_said_when_tracing_was_not_asked_for(monkeypatch, capsys, value):
    if value is not None:
        monkeypatch.setenv("LANGSMITH_TRACING", value)
    assert all(env["LANGSMITH_TRACING"] == "false" for env in both_envs())
    assert capsys.readouterr().err == ""
