"""`python -m sitewalk.ui check|render` as agent authors run it: a subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PY_SRC = Path(__file__).resolve().parents[2] / "py_src"
GOOD = {"root": "card", "elements": {
    "card": {"type": "InspectionCard", "props": {"title": "Inspection <42>", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "high"}}}}


def run(*args, stdin=None):
    env = {**os.environ, "PYTHONPATH": str(PY_SRC)}
    return subprocess.run([sys.executable, "-m", "sitewalk.ui", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=60)


@pytest.fixture
def write(tmp_path):
    def _write(content, name="spec.json"):
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return str(path)
    return _write


def test_check_valid_spec_exits_0_and_prints_no_issue(write):
    done = run("check", write(GOOD))
    assert done.returncode == 0 and done.stdout == ""
    assert "ok" in done.stderr


def test_check_invalid_spec_prints_one_json_issue_a_line_and_exits_1(write):
    bad = json.loads(json.dumps(GOOD))
    bad["elements"]["risk"]["type"] = "Marquee"
    bad["elements"]["card"]["children"].append("ghost")
    done = run("check", write(bad))
    assert done.returncode == 1
    issues = [json.loads(line) for line in done.stdout.splitlines()]
    assert {(i["code"], i["element"]) for i in issues} == {("unknown_type", "risk"), ("missing_child", "card")}
    assert all(set(i) == {"code", "element", "message", "repair"} for i in issues)


def test_unreadable_or_non_json_file_exits_2(write, tmp_path):
    assert run("check", str(tmp_path / "absent.json")).returncode == 2
    done = run("check", write("{not json", "broken.json"))
    assert done.returncode == 2 and "not JSON" in done.stderr


def test_render_prints_the_registry_html(write):
    done = run("render", write({**GOOD, "identity": {"tool_call_id": "c1", "revision": 0}}))
    assert done.returncode == 0, done.stderr
    assert 'data-sw-id="card"' in done.stdout and "Inspection &lt;42&gt;" in done.stdout


def test_render_of_an_invalid_spec_exits_1_with_issues_on_stderr(write):
    done = run("render", write({"root": "x", "elements": {}}))
    assert done.returncode == 1 and done.stdout == "" and "missing_root" in done.stderr


def test_check_reads_stdin():
    assert run("check", "-", stdin=json.dumps(GOOD)).returncode == 0
