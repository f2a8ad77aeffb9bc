"""`langgraph dev` runs on the interpreter of the environment that starts it (sitewalk_build/agent_server.py).

A venv copied from another folder (a git worktree's) keeps the first venv's interpreter in its scripts'
first line: started by that line, the server imported the other venv's editable install, so a live test
of a worktree exercised another folder's server code (a change to it, or a mutation, went unseen).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from sitewalk_build.agent_server import _langgraph_cmd  # noqa: E402


def test_the_cli_of_this_environment_is_run_by_this_interpreter_not_by_its_first_line():
    cmd = _langgraph_cmd()
    assert cmd == [sys.executable, str(Path(sys.executable).parent / "langgraph")]
