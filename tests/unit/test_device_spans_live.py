"""`POST /sitewalk/device-spans` on the live agent server of the session (langgraph dev; Aegra with
SITEWALK_SERVER=aegra): the route is there on both, answers the page's origin (CORS), takes the spans of a
thread the caller may read, and refuses another inspector's token, a missing one, a thread that does not exist,
and a malformed or oversized batch, each with its typed code."""

from __future__ import annotations

import json
import os

import httpx
from signin_helpers import ANA, BEN

from sitewalk_agent.tracing.device_route import ROUTE
from sitewalk_agent.tracing.device_spans import MAX_BODY_BYTES
from sitewalk_shared.contracts.trace_wire import inspection_root


def device_batch(thread_id: str, span_id: str = "1111111111111111") -> dict[str, object]:
    root = inspection_root(thread_id)
    return {"thread_id": thread_id, "forked_from": None, "spans": [{
        "name": "device.start_press", "trace_id": root.trace_id, "span_id": span_id, "parent_span_id": root.span_id,
        "start_unix_nano": 1_700_000_000_000_000_000, "end_unix_nano": 1_700_000_000_100_000_000,
        "attributes": {"sitewalk.thread_id": thread_id}, "status": "ok"}]}


def new_thread(client: httpx.Client, headers: dict[str, str] | None = None) -> str:
    response = client.post("/threads", json={"metadata": {}}, headers=headers or {})
    response.raise_for_status()
    return str(response.json()["thread_id"])


def test_the_owner_sends_spans_once_and_others_are_refused(auth_server):
    with httpx.Client(base_url=auth_server, timeout=30) as client:
        thread_id = new_thread(client, ANA.headers)
        body = device_batch(thread_id, os.urandom(8).hex())
        first = client.post(ROUTE, json=body, headers=ANA.headers)
        again = client.post(ROUTE, json=body, headers=ANA.headers)
        bens = client.post(ROUTE, json=body, headers=BEN.headers)
        nobodys = client.post(ROUTE, json=body)
    assert first.status_code == 200 and first.json() == {"exported": 1, "duplicates": 0}
    assert again.status_code == 200 and again.json() == {"exported": 0, "duplicates": 1}
    assert bens.status_code == 404 and bens.json()["error"] == "thread_not_found"
    assert nobodys.status_code == 401 and nobodys.json()["error"] == "unauthorized"


def test_a_span_aimed_at_another_inspectors_trace_is_refused(auth_server):
    """Ben names his own thread but Ana's trace: refused before anything is exported."""
    with httpx.Client(base_url=auth_server, timeout=30) as client:
        anas, bens = new_thread(client, ANA.headers), new_thread(client, BEN.headers)
        body = device_batch(anas)
        body["thread_id"] = bens
        response = client.post(ROUTE, json=body, headers=BEN.headers)
    assert response.status_code == 422 and response.json()["error"] == "foreign_trace"


def test_bad_batches_get_typed_refusals_and_the_page_may_read_them(agent_server):
    origin = {"Origin": "http://127.0.0.1:9"}
    with httpx.Client(base_url=agent_server, timeout=30) as client:
        thread_id = new_thread(client)
        bad_name = device_batch(thread_id)
        bad_name["spans"][0]["name"] = "device.whatever"
        refused = client.post(ROUTE, json=bad_name, headers=origin)
        not_json = client.post(ROUTE, content=b"{", headers=origin)
        too_big = client.post(ROUTE, content=b" " * (MAX_BODY_BYTES + 1), headers=origin)
        missing = client.post(ROUTE, json=device_batch("no-such-thread"), headers=origin)
        preflight = client.options(ROUTE, headers={**origin, "Access-Control-Request-Method": "POST",
                                                   "Access-Control-Request-Headers": "content-type,authorization"})
        taken = client.post(ROUTE, content=json.dumps(device_batch(thread_id, os.urandom(8).hex())),
                            headers={**origin, "Content-Type": "application/json"})
    assert (refused.status_code, refused.json()["error"]) == (422, "bad_span")
    assert refused.json()["issues"] == ["spans[0].name"]
    assert (not_json.status_code, not_json.json()["error"]) == (400, "malformed_batch")
    assert (too_big.status_code, too_big.json()["error"]) == (413, "body_too_large")
    assert (missing.status_code, missing.json()["error"]) == (404, "thread_not_found")
    assert preflight.status_code == 200 and preflight.headers.get("access-control-allow-origin")
    assert taken.status_code == 200 and taken.headers.get("access-control-allow-origin")
