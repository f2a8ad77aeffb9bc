"""The audit chain against the real agent server: an inspection's trail verifies, and no client may rewrite it.

Verify and export read the trail through the server's store API; the tampering is tried through it too
(`PUT`/`DELETE /store/items`), exactly as anyone with API access could, and refused.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.audit_trail import AuditTrail, read_audit_trail
from sitewalk.ui.render import render_template
from sitewalk_agent.audit.cli import main as audit_main
from sitewalk_agent.audit.trail import audit_namespace
from sitewalk_shared.contracts.audit import verify_chain
from sitewalk_shared.contracts.envelope import ok_result

ROOT = Path(__file__).resolve().parents[2]
DRAFT = {"inspection_id": "inspection-77", "site": "Dock 3", "inspector": "Ana", "findings": ["rust"], "risk": "high"}


async def _confirmed_inspection(url: str) -> str:
    client = get_client(url=url)
    thread = await client.threads.create()
    tid = thread["thread_id"]
    opening = "Start inspection inspection-77\nscript: confirm"
    start: dict[str, Any] = {"messages": [{"role": "user", "content": opening}]}
    await client.runs.wait(tid, "inspection", input=start)
    [pending] = (await client.threads.get_state(tid))["interrupts"]
    cid = pending["value"]["tool_call"]["id"]
    answer = {pending["id"]: {cid: ok_result("read_local_draft", cid, DRAFT)}}
    await client.runs.wait(tid, "inspection", command={"resume": answer})
    state = await client.threads.get_state(tid)
    [ask] = state["interrupts"]
    values: dict[str, Any] = dict(state["values"])  # type: ignore[arg-type]
    identity = values["ui_spec"]["identity"]
    press = {"type": "ui_action", "action": "create_work_order", "identity": identity, "element_id": "confirm",
             "idempotency_key": f"ui:{identity['tool_call_id']}:confirm"}
    await client.runs.wait(tid, "inspection", command={"resume": {ask["id"]: press}})
    await client.aclose()
    return tid


def _audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The audit command in this process (`_cli` checks the `python -m` entry once): exit code, out, err."""
    capsys.readouterr()
    code = audit_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitewalk_agent.audit", *args], cwd=ROOT / "py_src",
                          capture_output=True, text=True, timeout=60)


def test_a_whole_trail_verifies_and_no_client_may_rewrite_it(agent_server, capsys):
    """Without sign-in too: the store API refuses every put and delete in a trail (only the graph writes
    it), so a record cannot be edited through it, and the trail stays whole. (Edits below the API are
    caught: tests/durable/test_audit_tamper.py.)"""
    tid = asyncio.run(_confirmed_inspection(agent_server))
    whole = _cli("verify", tid, "--server", agent_server)
    assert whole.returncode == 0, whole.stderr
    exported = json.loads(_audit(capsys, "export", tid, "--server", agent_server)[1])
    kinds = [r["kind"] for r in exported["records"]]
    assert kinds.count("tool_call") >= 2 and "ui_action" in kinds  # read_local_draft, render_ui, the press
    victim = next(r for r in exported["records"] if r["tool_name"] == "read_local_draft")
    key = f"{victim['seq']:08d}-{victim['hash'][:12]}"

    async def tamper() -> list[int]:
        client = get_client(url=agent_server)
        statuses = []
        for write in (client.store.put_item(audit_namespace(tid), key, {**victim, "outcome": "failed:denied"},
                                            index=False),
                      client.store.delete_item(audit_namespace(tid), key)):
            try:
                await write
            except httpx.HTTPStatusError as refused:
                statuses.append(refused.response.status_code)
        await client.aclose()
        return statuses

    assert asyncio.run(tamper()) == [403, 403]
    assert json.loads(_audit(capsys, "export", tid, "--server", agent_server)[1]) == exported
    assert _audit(capsys, "verify", tid, "--server", agent_server)[0] == 0
    whole_in_app = asyncio.run(_app_trail(agent_server, tid))
    assert whole_in_app.problem is None and len(whole_in_app.records) == len(exported["records"])
    # the head the thread's state committed is the last record's (the press was the last audited step)
    assert whole_in_app.committed == {"seq": exported["records"][-1]["seq"], "hash": exported["records"][-1]["hash"]}
    assert whole_in_app.mismatch is None and whole_in_app.whole
    assert 'data-chain="broken"' not in render_template("audit_trail.j2", trail=whole_in_app)


async def _app_trail(url: str, tid: str) -> AuditTrail:
    """The trail as the app reads it: Sitewalk's own client, the store API, the shared chain check."""
    async with AgentServerClient(url) as client:
        trail = await read_audit_trail(client, tid)
    exported = json.loads(trail.export_json())
    items = [(f"{r['seq']:08d}-{r['hash'][:12]}", r) for r in exported["records"]] + [("head", exported["head"])]
    assert (verify_chain(items) is None) == (trail.problem is None)
    html = render_template("audit_trail.j2", trail=trail)
    assert html.count("<li ") == len(trail.records) and "read_local_draft" in html
    return trail


def test_an_unreachable_server_exits_2(capsys):
    assert audit_main(["verify", "some-thread", "--server", "http://127.0.0.1:9"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_an_unknown_thread_has_no_trail_and_fails(agent_server, capsys):
    assert audit_main(["verify", "no-such-thread", "--server", agent_server]) == 1
    assert "no audit records" in capsys.readouterr().err


def test_a_refused_read_exits_2(capsys):
    import http.server
    import threading

    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"detail": "sign in"}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert audit_main(["verify", "t1", "--server", url, "--token", "wrong-token-0123456789"]) == 2
    finally:
        server.shutdown()
        server.server_close()
    assert "401" in capsys.readouterr().err


def test_review_decisions_on_the_real_server_are_on_a_whole_chain(agent_server, capsys):
    async def reviewed() -> str:
        client = get_client(url=agent_server)
        tid = (await client.threads.create())["thread_id"]
        opening = "Start inspection inspection-78 script: review"
        start: dict[str, Any] = {"messages": [{"role": "user", "content": opening}]}
        await client.runs.wait(tid, "inspection", input=start)
        pending = [i for i in (await client.threads.get_state(tid))["interrupts"]
                   if i["value"].get("type") == "tool_approval"]
        decisions = {i["id"]: {"type": "approve", "args_revision": i["value"]["args_revision"],
                               "args_hash": i["value"]["args_hash"]} for i in pending}
        await client.runs.wait(tid, "inspection", command={"resume": decisions})
        await client.aclose()
        return tid

    tid = asyncio.run(reviewed())
    assert _audit(capsys, "verify", tid, "--server", agent_server)[0] == 0
    records = json.loads(_audit(capsys, "export", tid, "--server", agent_server)[1])["records"]
    approved = [r for r in records if r["kind"] == "review_decision"]
    assert len(approved) == 3 and all(r["review_status"] == "approved" for r in approved)
    ran = [r for r in records if r["kind"] == "tool_call" and r["tool_name"] in ("create_work_order",
                                                                                  "notify_site_manager")]
    assert len(ran) == 3 and all(r["review_status"] == "approved" and r["args_revision"] == 1 for r in ran)
