"""The audit chain against the real agent server: an inspection's trail verifies, and no client may rewrite it.

Verify and export read the trail through the server's store API; the tampering is tried through it too
(`PUT`/`DELETE /store/items`), exactly as anyone with API access could, and refused. Below the API,
`langgraph dev` keeps its store in `.langgraph_api/store.pckl` while stopped: a record re-sealed there and
a tail cut off with its head pointer are caught by verify's comparison with the checkpoints' head (as
tests/durable/test_audit_tamper.py does in Aegra's Postgres).
"""

from __future__ import annotations

import asyncio
import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from audit_helpers import committed_heads, record_key, reseal
from langgraph_sdk import get_client

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.audit_trail import AuditTrail, read_audit_trail
from sitewalk.ui.render import render_template
from sitewalk_agent.audit.cli import main as audit_main
from sitewalk_agent.audit.trail import audit_namespace
from sitewalk_shared.contracts.audit import HEAD_KEY, committed_head, verify_chain
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


def test_each_audited_step_commits_its_head_in_the_threads_checkpoints(agent_server, capsys):
    """The middleware writes {seq, hash} of each tool call's record into the state with the tool's result,
    so it is checkpointed with the step; verify and the app compare the store with it. Each tool call and
    the press has its own checkpointed head (not only the last step's)."""
    tid = asyncio.run(_confirmed_inspection(agent_server))
    records = json.loads(_audit(capsys, "export", tid, "--server", agent_server)[1])["records"]
    heads = asyncio.run(committed_heads(agent_server, tid))
    audited = [r for r in records if r["kind"] in ("tool_call", "ui_action")]
    assert [r["tool_name"] for r in audited if r["kind"] == "tool_call"] == ["read_local_draft", "render_ui"]
    missing = [r["seq"] for r in audited if committed_head(r) not in heads]
    assert not missing, f"records {missing} were never committed as the thread's audit head: {heads}"


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


def _rewrite_stopped_store(state: Path, tid: str, replace: list[tuple[str, dict[str, Any]]],
                           remove: list[str]) -> None:
    """Edit the trail in a stopped `langgraph dev`'s store file, as someone with its disk could: put
    `replace` (the head pointer follows its last record), drop the keys in `remove`."""
    from langgraph.store.base import Item

    path = state / ".langgraph_api" / "store.pckl"
    data = pickle.loads(path.read_bytes())
    namespace = audit_namespace(tid)
    items = data[namespace]
    template = items[HEAD_KEY]
    for key in remove:
        del items[key]
    last_key, last = replace[-1]
    head = {"seq": last["seq"], "hash": last["hash"], "key": last_key}
    for key, value in [*replace, (HEAD_KEY, head)]:
        items[key] = Item(value=value, key=key, namespace=namespace, created_at=template.created_at,
                          updated_at=template.updated_at)
    path.write_bytes(pickle.dumps(data, 2))


def test_a_resealed_or_cut_trail_below_the_api_is_caught_on_langgraph_dev(workorders_db, tmp_path, capsys):
    """verify compares the store's chain with the head the checkpoints committed: a chain re-sealed with
    correct hashes, or cut together with its head pointer, links up, and only that comparison sees it."""
    from build import start_agent_server

    state = tmp_path / "server"
    server = start_agent_server(state_dir=state)
    try:
        resealed, cut = (asyncio.run(_confirmed_inspection(server.url)) for _ in range(2))
        before = {tid: json.loads(_audit(capsys, "export", tid, "--server", server.url)[1])["records"]
                  for tid in (resealed, cut)}
    finally:
        server.stop()
    records = before[resealed]
    edited = [*records[:1], {**records[1], "outcome": "failed:denied"}, *records[2:]]
    _rewrite_stopped_store(state, resealed, reseal(edited, 1), [record_key(r) for r in records[1:]])
    records = before[cut]
    _rewrite_stopped_store(state, cut, [(record_key(records[-2]), records[-2])], [record_key(records[-1])])

    server = start_agent_server(state_dir=state)
    try:
        url = server.url
        exported = json.loads(_audit(capsys, "export", resealed, "--server", url)[1])["records"]
        assert exported[1]["outcome"] == "failed:denied"  # the store now says so (and its chain links: below)
        code, _, err = _audit(capsys, "verify", resealed, "--server", url)
        assert code == 1 and "checkpoints committed" in err, err
        shown = asyncio.run(_read_in_app(url, resealed))
        assert shown.problem is None and shown.mismatch is not None and shown.mismatch.kind == "changed"

        last, kept = before[cut][-1], before[cut][-2]
        assert len(json.loads(_audit(capsys, "export", cut, "--server", url)[1])["records"]) == len(before[cut]) - 1
        code, _, err = _audit(capsys, "verify", cut, "--server", url)
        assert code == 1, err
        assert f"committed record {last['seq']} but the chain ends at record {kept['seq']}" in err
        shown = asyncio.run(_read_in_app(url, cut))
        assert shown.problem is None and shown.mismatch is not None and shown.mismatch.kind == "cut"
    finally:
        server.stop()


async def _read_in_app(url: str, tid: str) -> AuditTrail:
    async with AgentServerClient(url) as client:
        return await read_audit_trail(client, tid)
