"""The official JS SDK answers two parallel headless interrupts of Sitewalk's graph in one command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from json_render_peer import require_node

JS = Path(__file__).resolve().parents[1] / "js"


def test_the_js_sdk_answers_both_parallel_headless_tools_in_one_command(agent_server):
    node = require_node("@langchain/langgraph-sdk")  # skips without node, fails with SITEWALK_REQUIRE_NODE=1
    if not (JS / "node_modules" / "@langchain" / "langgraph-sdk").is_dir():
        pytest.fail("tests/js/node_modules lacks @langchain/langgraph-sdk: run `npm ci` in tests/js")
    out = subprocess.run([node, "sdk_parallel.mjs", agent_server], cwd=JS, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])

    assert sorted(report["pending_at_once"]) == ["get_current_location", "read_local_draft"]
    assert sorted(name for name, _ in report["executed"]) == ["get_current_location", "read_local_draft"]
    [command] = report["commands"]  # both answers went out together
    assert command["keyedByInterruptId"] is True and len(command["resume"]) == 2
    answered_calls = {call for keyed in command["resume"].values() for call in keyed}

    final = report["final"]
    tools = {m["name"]: m for m in final["tool_messages"] if m["name"] != "render_ui"}
    assert set(tools) == {"read_local_draft", "get_current_location"}
    assert {m["tool_call_id"] for m in tools.values()} == answered_calls
    assert all(m["status"] == "success" and m["artifact"] == {"answered_by": "browser"} for m in tools.values())
    assert final["ui_root"] == "card" and final["interrupts"] == 0 and final["next"] == []
    assert final["last_text"] == "The card for inspection-77 is on screen."
    assert len(report["runs"]) == 2  # the first run, and one resume for both tools
    assert all(run["status"] == "success" for run in report["runs"])
