"""Sign-in and isolation (py_src/sitewalk_agent/auth.py) through the raw HTTP API, on both servers.

Two inspectors with tokens from a token file (SITEWALK_TOKENS): Ana starts an inspection and it
waits on a headless tool; Ben can neither see it in a search nor read, resume, fork, stream, list
or cancel it (404 or 403), nor forge its owner; the store serves each only their own namespace.
The same handler runs on `langgraph dev` (headers as bytes) and on Aegra (headers as str).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agent_servers import serve_agent
from durable_helpers import ASSISTANT, draft_answer, start_message
from signin_helpers import ANA as ANA_INSPECTOR
from signin_helpers import BEN as BEN_INSPECTOR
from signin_helpers import write_token_file

from sitewalk_shared.contracts.audit import audit_namespace

pytestmark = pytest.mark.xdist_group("auth")  # one worker: servers started once for the module

ANA = ANA_INSPECTOR.headers
BEN = BEN_INSPECTOR.headers
DENIED = (403, 404)


@pytest.fixture(scope="module")
def token_file(tmp_path_factory) -> str:
    return str(write_token_file(tmp_path_factory.mktemp("auth")))


@pytest.fixture(scope="module", params=["inmem", "aegra"])
def server_url(request, token_file) -> Iterator[str]:
    yield from serve_agent(request.param, "auth", env={"SITEWALK_TOKENS": token_file})


def sse_events(response: httpx.Response) -> list[tuple[str, Any]]:
    events, name = [], ""
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line[5:].strip() or "null")))
    return events


def stream_run(http: httpx.Client, thread_id: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    """POST runs/stream and read it to the end (the response keeps the status and the events)."""
    with http.stream("POST", f"/threads/{thread_id}/runs/stream", headers=headers,
                     json={"assistant_id": ASSISTANT, "stream_mode": ["values", "updates"], **body}) as response:
        response.read()
    return response


def waiting_thread(http: httpx.Client, headers: dict[str, str]) -> tuple[str, str, dict[str, Any]]:
    """A thread of the caller's, waiting on read_local_draft: (thread id, run id, pending interrupt)."""
    thread = http.post("/threads", headers=headers, json={"metadata": {}}).json()
    started = stream_run(http, thread["thread_id"], {"input": start_message()}, headers)
    assert started.status_code == 200, started.text
    run_id = sse_events(started)[0][1]["run_id"]
    state = http.get(f"/threads/{thread['thread_id']}/state", headers=headers).json()
    [pending] = state["interrupts"]
    return thread["thread_id"], run_id, pending


def refused(response: httpx.Response) -> bool:
    """403/404, or (langgraph dev, once a stream has begun) a stream whose only event is a not-found error."""
    if response.status_code in DENIED:
        return True
    events = sse_events(response)
    return response.status_code == 200 and [name for name, _ in events] == ["error"] and \
        "not found" in events[0][1]["message"].lower()


@pytest.fixture
def http(server_url) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server_url, timeout=60) as client:
        yield client


def test_sign_in_is_required(http):
    assert http.post("/threads/search", json={}).status_code == 401
    assert http.post("/threads", json={}, headers={"Authorization": "Bearer not-a-token-of-anyone"}).status_code == 401
    no_scheme = {"Authorization": ANA_INSPECTOR.token}
    assert http.post("/threads/search", json={}, headers=no_scheme).status_code == 401
    assert http.post("/threads/search", json={}, headers=ANA).status_code == 200


def test_another_inspector_cannot_touch_a_thread(http):
    thread_id, run_id, pending = waiting_thread(http, ANA)
    thread = f"/threads/{thread_id}"

    assert thread_id not in [t["thread_id"] for t in http.post("/threads/search", json={}, headers=BEN).json()]
    assert thread_id in [t["thread_id"] for t in http.post("/threads/search", json={}, headers=ANA).json()]
    assert http.get(thread, headers=BEN).status_code in DENIED
    assert http.get(f"{thread}/state", headers=BEN).status_code in DENIED
    assert http.post(f"{thread}/history", json={"limit": 5}, headers=BEN).status_code in DENIED
    listed = http.get(f"{thread}/runs", headers=BEN)  # Aegra lists nothing, langgraph dev says 404
    assert listed.status_code in DENIED or listed.json() == []
    assert http.get(f"{thread}/runs/{run_id}", headers=BEN).status_code in DENIED
    with http.stream("GET", f"{thread}/runs/{run_id}/stream", headers=BEN) as joined:
        joined.read()
    assert refused(joined)
    assert refused(stream_run(http, thread_id, {"command": {"resume": draft_answer(pending)}}, BEN))
    fork = {"values": {"messages": []}, "as_node": "tools"}
    assert http.post(f"{thread}/state", json=fork, headers=BEN).status_code in DENIED
    assert http.post(f"{thread}/runs/{run_id}/cancel", headers=BEN).status_code in DENIED
    assert http.delete(thread, headers=BEN).status_code in DENIED

    # Ana's inspection is as she left it, and she finishes it
    state = http.get(f"{thread}/state", headers=ANA).json()
    assert state["interrupts"] == [pending]
    finished = stream_run(http, thread_id, {"command": {"resume": draft_answer(pending)}}, ANA)
    assert finished.status_code == 200
    final = http.get(f"{thread}/state", headers=ANA).json()
    assert final["values"]["messages"][-1]["content"] == "The card for inspection-42 is on screen."


def test_the_owner_cannot_be_forged(http):
    forged = http.post("/threads", json={"metadata": {"owner": "ana"}}, headers=BEN)
    assert forged.status_code == 403 and "owner" in forged.text
    created = http.post("/threads", json={"metadata": {"site": "pier 4"}}, headers=BEN).json()
    assert created["metadata"]["owner"] == "ben"
    assert http.get(f"/threads/{created['thread_id']}", headers=ANA).status_code in DENIED
    assert http.get(f"/threads/{created['thread_id']}", headers=BEN).status_code == 200
    named_self = http.post("/threads", json={"metadata": {"owner": "ben"}}, headers=BEN)
    assert named_self.status_code == 200 and named_self.json()["metadata"]["owner"] == "ben"


def test_a_thread_cannot_be_handed_to_another_inspector(http):
    """An update that names another owner is refused, and the thread stays its owner's (the SDK probe of
    Dec 6 found it quietly corrected instead: the client was told it had worked)."""
    created = http.post("/threads", json={}, headers=BEN).json()
    handed = http.patch(f"/threads/{created['thread_id']}", json={"metadata": {"owner": "ana"}}, headers=BEN)
    assert handed.status_code == 403 and "owner" in handed.text
    assert http.get(f"/threads/{created['thread_id']}", headers=BEN).json()["metadata"]["owner"] == "ben"
    assert http.get(f"/threads/{created['thread_id']}", headers=ANA).status_code in DENIED
    renamed = http.patch(f"/threads/{created['thread_id']}", json={"metadata": {"site": "x"}}, headers=BEN)
    assert renamed.status_code == 200 and renamed.json()["metadata"]["owner"] == "ben"


def test_store_namespaces_belong_to_their_identity(http):
    item = {"namespace": ["users", "ana", "notes"], "key": "pier-7", "value": {"text": "bollard"}}
    assert http.put("/store/items", json=item, headers=ANA).status_code in (200, 204)
    query = {"namespace": "users.ana.notes", "key": "pier-7"}
    got = http.get("/store/items", params=query, headers=ANA)
    assert got.status_code == 200 and got.json()["value"] == {"text": "bollard"}
    # Aegra hands a search's prefix to the handler as `namespace_prefix` (langgraph dev: `namespace`)
    found = http.post("/store/items/search", json={"namespace_prefix": ["users", "ana", "notes"]}, headers=ANA)
    assert found.status_code == 200 and [i["namespace"] for i in found.json()["items"]] == [item["namespace"]]
    assert http.get("/store/items", params=query, headers=BEN).status_code in DENIED
    assert http.put("/store/items", json={**item, "value": {"text": "x"}}, headers=BEN).status_code in DENIED
    for prefix in (["users", "ana"], ["ana"], ["users"], []):
        assert http.post("/store/items/search", json={"namespace_prefix": prefix}, headers=BEN).status_code in DENIED


def test_the_owner_reads_the_audit_trail_the_graph_wrote(http):
    """The graph writes the trail to the store itself, beside the API; its owner reads it through the
    API on both servers (Aegra's API files every namespace under users/<identity>), no one else does."""
    thread_id, _, pending = waiting_thread(http, ANA)
    assert stream_run(http, thread_id, {"command": {"resume": draft_answer(pending)}}, ANA).status_code == 200
    search = {"namespace_prefix": list(audit_namespace(thread_id, "ana")), "limit": 100}
    found = http.post("/store/items/search", json=search, headers=ANA)
    assert found.status_code == 200
    items = found.json()["items"]
    assert {tuple(i["namespace"]) for i in items} == {audit_namespace(thread_id, "ana")}
    assert "read_local_draft" in [i["value"].get("tool_name") for i in items]
    assert http.post("/store/items/search", json=search, headers=BEN).status_code in DENIED


def test_assistants_can_be_read_not_changed(http):
    found = http.post("/assistants/search", json={"graph_id": ASSISTANT}, headers=BEN)
    assert found.status_code == 200 and found.json()[0]["graph_id"] == ASSISTANT
    made = http.post("/assistants", json={"graph_id": ASSISTANT, "name": "mine"}, headers=BEN)
    assert made.status_code == 403


def test_the_app_signs_in_as_the_identity_the_server_names(server_url):
    """The app's SignIn (sitewalk.signin) on the real server: a wrong token is refused with a typed error and
    kept nowhere; Ana's token is answered with her identity by the whoami graph, then sent on every request."""
    from memory_storage import DictStorage

    from sitewalk.agentserver import AgentServerClient, Unauthorized
    from sitewalk.signin import Identity, SignIn, TokenRefused

    async def go() -> None:
        settings = DictStorage()
        async with AgentServerClient(server_url) as client:
            refusals: list[Unauthorized] = []
            client.on_unauthorized = refusals.append
            signin = SignIn(client, settings)
            with pytest.raises(TokenRefused):
                await signin.sign_in("not-the-token-of-anyone-0123")
            assert refusals and not settings.data
            with pytest.raises(Unauthorized):
                await client.threads.search()
            assert await signin.sign_in(ANA_INSPECTOR.token) == Identity("ana", "Ana Ortiz")
            thread = await client.threads.create(metadata={"inspection_id": "inspection-7"})
            assert thread["metadata"]["owner"] == "ana"
            assert thread["thread_id"] in [t["thread_id"] for t in await client.threads.search(limit=100)]
        async with AgentServerClient(server_url) as reloaded:  # the next page load on this device
            again = SignIn(reloaded, settings)
            assert again.restore() == Identity("ana", "Ana Ortiz")
            assert (await reloaded.threads.get(thread["thread_id"]))["metadata"]["owner"] == "ana"

    asyncio.run(go())


def test_an_identity_written_into_a_run_is_not_taken(http):
    """A run's configurable is copied from the request on Aegra: the ids a client writes there are not the
    identity (only the server's `langgraph_auth_user` is)."""
    forged = {"configurable": {"langgraph_auth_user_id": "ana", "user_id": "ana", "user_display_name": "Ana",
                               "inspector": "Ana Ortiz"}}
    answer = http.post("/runs/wait", json={"assistant_id": "whoami", "input": {}, "config": forged}, headers=BEN)
    if answer.status_code == 200:
        assert answer.json() == {"identity": "ben", "display_name": "Ben Okafor", "authenticated": True}
    else:  # langgraph dev refuses reserved configurable keys outright
        assert answer.status_code in (400, 403, 422), answer.text
