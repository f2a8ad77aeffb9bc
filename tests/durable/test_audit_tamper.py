"""An inspector cannot rewrite her own audit trail (py_src/sitewalk_agent/audit), on both servers.

Through the API no token may put or delete anything in an audit trail or its lock (sitewalk_agent.auth):
each attempt is refused and `python -m sitewalk_agent.audit verify` still says whole. Below the API
(Aegra's Postgres, where only an operator reaches), a record re-sealed with correct hashes and a tail cut
off together with its head pointer are both caught: the graph also committed the head in the thread's
checkpoints, and verify compares the two (exit 1). A trail the caller may not read exits 2.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_servers import serve_agent
from audit_helpers import committed_heads, reseal
from durable_helpers import start_test_stack, stop_test_stack
from langgraph_sdk import get_client
from signin_helpers import ANA, BEN, write_token_file

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.audit_trail import AuditTrail, read_audit_trail
from sitewalk_agent.audit.store_lock import lock_namespace
from sitewalk_agent.audit.trail import audit_namespace
from sitewalk_build.durable import pg_bin
from sitewalk_shared.contracts.audit import HEAD_KEY, committed_head
from sitewalk_shared.contracts.envelope import ok_result

ROOT = Path(__file__).resolve().parents[2]
DRAFT = {"inspection_id": "inspection-77", "site": "Dock 3", "inspector": "Ana", "findings": ["rust"], "risk": "high"}
SqlRunner = Callable[[str], str]


@pytest.fixture(scope="module", params=["inmem", "aegra"])
def server(request, tmp_path_factory) -> Iterator[tuple[str, SqlRunner | None]]:
    """(URL, run SQL in its database or None) of a server with sign-in; Aegra's Postgres is reachable."""
    env = {"SITEWALK_TOKENS": str(write_token_file(tmp_path_factory.mktemp("audit-tamper")))}
    if request.param == "inmem":
        yield from ((url, None) for url in serve_agent("inmem", "audit_tamper", env=env))
        return
    stack = start_test_stack("audit-tamper", extra_env=env)
    try:
        yield stack.url, lambda sql: _psql(stack.database_url, sql)
    finally:
        stop_test_stack(stack)


def _psql(database_url: str, sql: str) -> str:
    done = subprocess.run([str(pg_bin() / "psql"), database_url, "-v", "ON_ERROR_STOP=1", "-tAc", sql],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, as an operator runs it."""
    return subprocess.run([sys.executable, "-m", "sitewalk_agent.audit", *args], cwd=ROOT / "py_src",
                          capture_output=True, text=True, timeout=120)


def verify(url: str, thread_id: str, token: str = ANA.token) -> subprocess.CompletedProcess[str]:
    return audit("verify", thread_id, "--server", url, "--token", token, "--owner", "ana")


async def _confirmed_inspection(url: str) -> str:
    """Ana's inspection through to a pressed ConfirmButton: read_local_draft, render_ui, the press."""
    client = get_client(url=url, headers=ANA.headers)
    tid = (await client.threads.create())["thread_id"]
    opening = "Start inspection inspection-77\nscript: confirm"
    start: dict[str, Any] = {"messages": [{"role": "user", "content": opening}]}
    await client.runs.wait(tid, "inspection", input=start)
    [pending] = (await client.threads.get_state(tid))["interrupts"]
    cid = pending["value"]["tool_call"]["id"]
    await client.runs.wait(tid, "inspection",
                           command={"resume": {pending["id"]: {cid: ok_result("read_local_draft", cid, DRAFT)}}})
    state = await client.threads.get_state(tid)
    [ask] = state["interrupts"]
    values: dict[str, Any] = dict(state["values"])  # type: ignore[arg-type]
    identity = values["ui_spec"]["identity"]
    press = {"type": "ui_action", "action": "create_work_order", "identity": identity, "element_id": "confirm",
             "idempotency_key": f"ui:{identity['tool_call_id']}:confirm"}
    await client.runs.wait(tid, "inspection", command={"resume": {ask["id"]: press}})
    await client.aclose()
    return tid


def trail(url: str, thread_id: str) -> list[dict[str, Any]]:
    exported = audit("export", thread_id, "--server", url, "--token", ANA.token, "--owner", "ana")
    assert exported.returncode == 0, exported.stderr
    import json
    return json.loads(exported.stdout)["records"]


def test_no_token_can_put_or_delete_in_an_audit_trail(server):
    url, _ = server
    tid = asyncio.run(_confirmed_inspection(url))
    assert verify(url, tid).returncode == 0
    records = trail(url, tid)
    heads = asyncio.run(committed_heads(url, tid, ANA.headers))  # each audited step committed its head
    assert [r["seq"] for r in records if r["kind"] in ("tool_call", "ui_action")
            and committed_head(r) not in heads] == []
    last = records[-1]
    key = f"{last['seq']:08d}-{last['hash'][:12]}"
    namespace = audit_namespace(tid, "ana")

    async def attempts() -> list[int]:
        statuses = []
        for who in (ANA, BEN):
            client = get_client(url=url, headers=who.headers)
            writes = [client.store.put_item(namespace, key, {**last, "outcome": "failed:denied"}, index=False),
                      client.store.put_item(namespace, HEAD_KEY, {"seq": 1, "hash": "0" * 64, "key": "x"}),
                      client.store.delete_item(namespace, key),
                      client.store.delete_item(namespace, HEAD_KEY),
                      client.store.put_item(namespace[2:], key, last),  # unprefixed (Aegra would file it under hers)
                      client.store.put_item(lock_namespace(namespace), "claim", {"at": 9e12})]  # would block appends
            for write in writes:
                with pytest.raises(httpx.HTTPStatusError) as refused:
                    await write
                statuses.append(refused.value.response.status_code)
            await client.aclose()
        return statuses

    assert set(asyncio.run(attempts())) <= {403, 404}
    assert trail(url, tid) == records
    assert verify(url, tid).returncode == 0
    assert in_app(url, tid).whole and in_app(url, tid).committed["seq"] == records[-1]["seq"]
    for token in (BEN.token, "not-a-token-of-anyone-0123"):  # not hers to read: cannot be read, exit 2
        refused = verify(url, tid, token)
        assert refused.returncode == 2 and "cannot read" in refused.stderr


def in_app(url: str, thread_id: str) -> AuditTrail:
    """The trail as the app's audit panel reads it (Sitewalk's client, Ana's token): store and thread state."""
    async def read() -> AuditTrail:
        async with AgentServerClient(url, headers=ANA.headers) as client:
            return await read_audit_trail(client, thread_id, "ana")
    return asyncio.run(read())


def _rewrite(sql: SqlRunner, namespace: tuple[str, ...], records: list[dict[str, Any]],
             new: list[tuple[str, dict[str, Any]]]) -> None:
    """Replace records (and the head) in Aegra's store table, as someone with the database could."""
    import json
    prefix = ".".join(namespace)
    old_keys = ",".join(f"'{r['seq']:08d}-{r['hash'][:12]}'" for r in records)
    rows = [*new, (HEAD_KEY, {"seq": new[-1][1]["seq"], "hash": new[-1][1]["hash"], "key": new[-1][0]})]
    values = ",".join(f"('{prefix}', '{k}', $j${json.dumps(v)}$j$::jsonb)" for k, v in rows)
    sql(f"BEGIN; DELETE FROM store WHERE prefix = '{prefix}' AND key IN ({old_keys}, '{HEAD_KEY}'); "
        f"INSERT INTO store (prefix, key, value) VALUES {values}; COMMIT;")


@pytest.mark.parametrize("server", ["aegra"], indirect=True)  # langgraph dev: tests/unit/test_audit_live.py
def test_a_resealed_or_cut_trail_below_the_api_is_caught(server):
    url, sql = server
    assert sql is not None
    namespace = audit_namespace("", "ana")[:-1]

    resealed = asyncio.run(_confirmed_inspection(url))
    records = trail(url, resealed)
    edited = [*records[:1], {**records[1], "outcome": "failed:denied"}, *records[2:]]
    _rewrite(sql, (*namespace, resealed), records[1:], reseal(edited, 1))
    assert [r["outcome"] for r in trail(url, resealed)][1] == "failed:denied"  # the store now says so
    caught = verify(url, resealed)
    assert caught.returncode == 1 and "checkpoints committed" in caught.stderr, caught.stderr
    shown = in_app(url, resealed)  # the chain links up again; the panel compares it with the committed head
    assert shown.problem is None and shown.mismatch is not None and shown.mismatch.kind == "changed"
    assert shown.verdict().startswith(f"broken: the trail was changed at or before step {records[-1]['seq']}")

    cut = asyncio.run(_confirmed_inspection(url))
    records = trail(url, cut)
    prefix = ".".join((*namespace, cut))
    last, before = records[-1], records[-2]
    sql(f"BEGIN; DELETE FROM store WHERE prefix = '{prefix}' AND key = '{last['seq']:08d}-{last['hash'][:12]}'; "
        f"UPDATE store SET value = $j${{\"seq\": {before['seq']}, \"hash\": \"{before['hash']}\", "
        f"\"key\": \"{before['seq']:08d}-{before['hash'][:12]}\"}}$j$::jsonb "
        f"WHERE prefix = '{prefix}' AND key = '{HEAD_KEY}'; COMMIT;")
    assert len(trail(url, cut)) == len(records) - 1
    caught = verify(url, cut)
    assert caught.returncode == 1, caught.stderr
    assert f"committed record {last['seq']} but the chain ends at record {before['seq']}" in caught.stderr
    shown = in_app(url, cut)
    assert shown.problem is None and shown.mismatch is not None and shown.mismatch.kind == "cut"
    assert str(shown.mismatch) == (f"the trail was cut after step {before['seq']}: "
                                   f"the thread's checkpoints committed step {last['seq']}")
