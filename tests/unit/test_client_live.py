"""The agent-server client against a real `langgraph dev` (and a few offline checks with a fake transport).

The live flow: headless-tool interrupt -> resume by interrupt id -> streamed render_ui -> history
page by page -> fork from an earlier checkpoint -> two branches, nothing deleted.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import uuid
from collections import defaultdict
from typing import Any

import pytest

from sitewalk.agentserver import (
    AgentServerClient,
    Conflict,
    HTTPStatusError,
    NotFound,
    ServerError,
    ServerUnreachable,
    StreamError,
    UnprocessableEntity,
    error_for_status,
    pending_interrupts,
)
from sitewalk.agentserver.schema import Interrupt
from sitewalk_shared.contracts.envelope import error_result, ok_result
from sitewalk_shared.ui_spec.validate import validate_spec

ASSISTANT = "inspection"
DRAFT = {
    "inspection_id": "inspection-42",
    "site": "Pier 7 — north berth",
    "inspector": "Ana Ortiz",
    "findings": ["Hairline crack in the east bollard"],
    "risk": "high",
}
START = {"messages": [{"role": "user", "content": "Start inspection inspection-42"}]}


def run(coro):
    return asyncio.run(coro)


async def collect(stream) -> list:
    return [part async for part in stream]


def interrupt_updates(parts) -> list[dict[str, Any]]:
    return [
        item
        for p in parts
        if p.event == "updates" and isinstance(p.data, dict)
        for item in p.data.get("__interrupt__", [])
    ]


def assemble_tool_calls(parts) -> dict[tuple, dict[str, Any]]:
    """messages-tuple parts -> {(namespace, message id, index): {id, name, args_text, fragments}}."""
    calls: dict[tuple, dict[str, Any]] = {}
    for p in parts:
        if p.event.split("|", 1)[0] != "messages":
            continue
        message, meta = p.data
        if message.get("type") != "AIMessageChunk":
            continue
        for tc in message.get("tool_call_chunks") or []:
            key = (meta.get("langgraph_checkpoint_ns", ""), message["id"], tc["index"])
            slot = calls.setdefault(key, {"id": None, "name": None, "args_text": "", "fragments": 0})
            slot["id"] = slot["id"] or tc.get("id")
            slot["name"] = slot["name"] or tc.get("name")
            slot["args_text"] += tc.get("args") or ""
            slot["fragments"] += 1
    return calls


async def start_and_wait(client: AgentServerClient) -> tuple[str, Interrupt, list]:
    thread = await client.threads.create(metadata={"test": "client_live"})
    parts = await collect(client.runs.stream(thread["thread_id"], ASSISTANT, input=START))
    state = await client.threads.get_state(thread["thread_id"])
    [pending] = pending_interrupts(state)
    return thread["thread_id"], pending, parts


# --- live -----------------------------------------------------------------------------------


def test_ok_and_assistant(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            assert await client.ok() is True
            found = await client.assistants.search(graph_id=ASSISTANT)
            assert found and found[0]["graph_id"] == ASSISTANT
            schemas = await client.assistants.get_schemas(found[0]["assistant_id"])
            properties = set(schemas["state_schema"]["properties"])
            assert {"messages", "inspection_id", "ui_spec", "client_tools"} <= properties

    run(go())


def test_headless_tool_render_history_and_fork(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            thread_id, pending, parts = await start_and_wait(client)

            # the stream: metadata first, then the interrupt as an `updates` event in the official shape
            assert parts[0].event == "metadata" and parts[0].data["run_id"]
            [streamed] = interrupt_updates(parts)
            value = streamed["value"]
            assert value["type"] == "tool"
            assert value["tool_call"]["name"] == "read_local_draft"
            assert value["tool_call"]["args"] == {"inspection_id": "inspection-42"}
            call_id = value["tool_call"]["id"]
            assert call_id.startswith("call_")
            # get_state lists the same pending interrupt
            assert pending["id"] == streamed["id"] and pending["value"] == value
            state = await client.threads.get_state(thread_id)
            assert state["next"] == ["tools"]

            # resume by interrupt id, the SDK's keyed shape
            answer = {call_id: ok_result("read_local_draft", call_id, dict(DRAFT))}
            resumed = await collect(client.resume(thread_id, ASSISTANT, {pending["id"]: answer}))
            calls = assemble_tool_calls(resumed)
            [render] = [c for c in calls.values() if c["name"] == "render_ui"]
            assert render["fragments"] >= 5 and render["id"].startswith("call_")
            spec = json.loads(render["args_text"])
            assert validate_spec(spec) == []
            assert spec["elements"]["card"]["props"]["site"] == DRAFT["site"]

            final = await client.threads.get_state(thread_id)
            assert final["next"] == [] and pending_interrupts(final) == []
            ui_spec = final["values"]["ui_spec"]
            assert ui_spec["identity"]["tool_call_id"] == render["id"]
            assert ui_spec["identity"]["revision"] == 1 and ui_spec["root"] == "card"
            last = final["values"]["messages"][-1]
            assert last["type"] == "ai" and last["content"] == "The card for inspection-42 is on screen."

            # history, two at a time, newest first, parent links intact
            pages = [page async for page in client.threads.iter_history(thread_id, page_size=2)]
            assert len(pages) >= 3 and all(len(p) <= 2 for p in pages)
            history = [s for page in pages for s in page]
            everything = await client.threads.get_history(thread_id, limit=1000)
            ids = [s["checkpoint"]["checkpoint_id"] for s in history]
            assert ids == [s["checkpoint"]["checkpoint_id"] for s in everything]
            assert len(set(ids)) == len(ids)
            assert ids == sorted(ids, reverse=True)  # uuid6 ids: time ordered
            assert history[0]["checkpoint"]["checkpoint_id"] == final["checkpoint"]["checkpoint_id"]
            for newer, older in itertools.pairwise(history):
                assert newer["parent_checkpoint"]["checkpoint_id"] == older["checkpoint"]["checkpoint_id"]
            assert history[-1]["parent_checkpoint"] is None

            # fork: answer the same tool call differently, from the checkpoint that waited on it
            [waiting] = [s for s in history if s["next"] == ["tools"] and s["tasks"] and s["tasks"][0]["interrupts"]]
            low = {**DRAFT, "risk": "low"}
            tool_message = {
                "type": "tool",
                "content": json.dumps(ok_result("read_local_draft", call_id, low)),
                "tool_call_id": call_id,
                "name": "read_local_draft",
            }
            fork_point = waiting["checkpoint"]["checkpoint_id"]
            new = await client.fork(thread_id, fork_point, values={"messages": [tool_message]}, as_node="tools")
            assert new["checkpoint_id"] and new["checkpoint_id"] != fork_point
            branch = await collect(client.runs.stream(thread_id, ASSISTANT, input=None,
                                                      checkpoint_id=new["checkpoint_id"]))
            assert not any(p.event == "error" for p in branch)
            after = await client.threads.get_state(thread_id)
            assert after["values"]["ui_spec"]["elements"]["risk"]["props"]["level"] == "low"
            assert after["values"]["messages"][-1]["content"] == "The card for inspection-42 is on screen."

            # nothing deleted; the fork point now has two children: two branches
            full = [s async for page in client.threads.iter_history(thread_id, page_size=3) for s in page]
            full_ids = {s["checkpoint"]["checkpoint_id"] for s in full}
            assert set(ids) <= full_ids and len(full_ids) > len(ids)
            children: dict[str, list[str]] = defaultdict(list)
            for s in full:
                if s["parent_checkpoint"]:
                    children[s["parent_checkpoint"]["checkpoint_id"]].append(s["checkpoint"]["checkpoint_id"])
            assert len(children[fork_point]) == 2
            leaves = full_ids - set(children)
            assert len(leaves) == 2  # the old branch's end and the new one's
            # the old branch's screen is still readable at its last checkpoint
            old_end = await client.threads.get_state(thread_id, checkpoint_id=ids[0])
            assert old_end["values"]["ui_spec"]["elements"]["risk"]["props"]["level"] == "high"

    run(go())


FAILURES = {
    "typed-corrupt": (  # (not_found is recovered: the agent starts a blank draft, see test_blank_draft.py)
        lambda cid: {cid: error_result("read_local_draft", cid, "corrupt_data",
                                       "the stored draft sitewalk:draft:inspection-42 is not valid JSON")},
        ["corrupt_data", "the stored draft sitewalk:draft:inspection-42 is not valid JSON"],
    ),
    "sdk-error": (lambda cid: {cid: {"error": "boom"}}, ["internal", "boom"]),  # the official SDK's failure shape
    "bare-error": (lambda cid: {"error": "boom"}, ["internal", "boom"]),  # not keyed by tool call id
}


def test_resume_with_failures(agent_server):
    """Each failure shape ends the run with a text naming the error (the cases run concurrently)."""

    async def one(client, name):
        make_answer, expected = FAILURES[name]
        thread_id, pending, _ = await start_and_wait(client)
        call_id = pending["value"]["tool_call"]["id"]
        await collect(client.resume(thread_id, ASSISTANT, {pending["id"]: make_answer(call_id)}))
        state = await client.threads.get_state(thread_id)
        messages = state["values"]["messages"]
        tool_message = next(m for m in messages if m["type"] == "tool")
        assert tool_message["status"] == "error" and tool_message["tool_call_id"] == call_id, name
        assert json.loads(tool_message["content"])["ok"] is False, name
        last = messages[-1]
        assert last["type"] == "ai" and not last.get("tool_calls"), name
        for word in expected:
            assert word in last["content"], (name, last["content"])
        assert not state["values"].get("ui_spec") and state["next"] == [], name

    async def go():
        async with AgentServerClient(agent_server) as client:
            await asyncio.gather(*(one(client, name) for name in FAILURES))

    run(go())


def test_stream_error_event_raises(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            thread = await client.threads.create()
            bad = {"messages": [{"role": "robot", "content": "hi"}]}
            with pytest.raises(StreamError) as info:
                await collect(client.runs.stream(thread["thread_id"], ASSISTANT, input=bad))
            assert info.value.error == "ValueError" and "robot" in info.value.message

    run(go())


def test_unknown_thread_is_not_found(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            missing = str(uuid.uuid4())
            with pytest.raises(NotFound) as info:
                await client.threads.get_state(missing)
            assert info.value.status == 404
            with pytest.raises(NotFound):
                await client.threads.get(missing)

    run(go())


def test_unreachable_server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}"

    async def go():
        async with AgentServerClient(url) as client:
            with pytest.raises(ServerUnreachable) as info:
                await client.ok()
            assert isinstance(info.value, ConnectionError) and info.value.url == url + "/info"
            with pytest.raises(ServerUnreachable):
                await collect(client.runs.stream("t", ASSISTANT, input=START))

    run(go())


# --- offline: a fake transport ----------------------------------------------------------------


class FakeTransport:
    def __init__(self, responses=None, stream_text=None):
        self.requests: list[tuple] = []
        self.responses = list(responses or [])
        self.stream_text = stream_text or []

    async def request(self, method, url, json=None, headers=None):
        self.requests.append((method, url, json))
        return self.responses.pop(0)

    async def stream(self, method, url, json=None, headers=None):
        self.requests.append((method, url, json))
        for text in self.stream_text:
            yield text

    async def aclose(self):
        pass


def test_history_before_uses_the_config_form():
    fake = FakeTransport([(200, [{"checkpoint": {"checkpoint_id": "b"}}, {"checkpoint": {"checkpoint_id": "a"}}]),
                          (200, [{"checkpoint": {"checkpoint_id": "z"}}]), (200, [])])

    async def go():
        client = AgentServerClient("http://agent.test/", transport=fake)
        pages = [p async for p in client.threads.iter_history("t1", page_size=2)]
        return pages

    pages = run(go())
    assert [[s["checkpoint"]["checkpoint_id"] for s in p] for p in pages] == [["b", "a"], ["z"]]
    assert fake.requests[0] == ("POST", "http://agent.test/threads/t1/history", {"limit": 2})
    assert fake.requests[1][2] == {"limit": 2, "before": {"configurable": {"checkpoint_id": "a"}}}
    assert len(fake.requests) == 2  # a short page ends it


def test_run_body_and_stream_parts():
    sse = ('event: metadata\r\ndata: {"run_id": "r"}\r\n\r\n: heartbeat\r\n\r\n'
           'event: values\r\ndata: {"a": 1}\r\nid: 5\r\n\r\n')
    fake = FakeTransport(stream_text=[sse[:17], sse[17:]])

    async def go():
        client = AgentServerClient("http://agent.test", transport=fake)
        return await collect(client.resume("t1", "inspection", {"i1": {"call_1": {"ok": True}}}, checkpoint_id="c9"))

    parts = run(go())
    assert [(p.event, p.data, p.id) for p in parts] == [("metadata", {"run_id": "r"}, None), ("values", {"a": 1}, "5")]
    method, url, body = fake.requests[0]
    assert (method, url) == ("POST", "http://agent.test/threads/t1/runs/stream")
    assert body == {
        "assistant_id": "inspection",
        "input": None,
        "command": {"resume": {"i1": {"call_1": {"ok": True}}}},
        "stream_mode": ["values", "updates", "messages-tuple"],
        "stream_subgraphs": False,
        "checkpoint": {"checkpoint_id": "c9"},
    }


def test_fork_sends_checkpoint_and_returns_new_config():
    fake = FakeTransport([(200, {"checkpoint": {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": "new"}})])

    async def go():
        client = AgentServerClient("http://agent.test", transport=fake)
        return await client.fork("t1", "old", values={"messages": []}, as_node="tools")

    assert run(go())["checkpoint_id"] == "new"
    assert fake.requests[0][2] == {"values": {"messages": []}, "as_node": "tools",
                                   "checkpoint": {"checkpoint_id": "old"}}


@pytest.mark.parametrize(
    "status, cls",
    [(404, NotFound), (409, Conflict), (422, UnprocessableEntity), (500, ServerError), (503, ServerError),
     (400, HTTPStatusError)],
)
def test_status_mapping(status, cls):
    err = error_for_status(status, {"detail": "nope"}, method="GET", url="http://x/y")
    assert type(err) is cls and err.status == status and err.body == {"detail": "nope"}
    assert "nope" in str(err)
    fake = FakeTransport([(status, {"detail": "nope"})])

    async def go():
        await AgentServerClient("http://agent.test", transport=fake).threads.get("t")

    with pytest.raises(cls):
        run(go())


def test_pending_interrupts_reads_both_places_and_dedupes():
    tool = {"type": "tool", "tool_call": {"id": "c1", "name": "read_local_draft", "args": {}}}
    state = {
        "interrupts": [{"id": "i1", "value": tool}],
        "tasks": [
            {"id": "t", "name": "tools", "interrupts": [{"id": "i1", "value": tool}, {"id": "i2", "value": {"x": 1}}],
             "state": {"tasks": [{"interrupts": [{"id": "i3", "value": 3}]}]}},
        ],
    }
    assert pending_interrupts(state) == [{"id": "i1", "value": tool}, {"id": "i2", "value": {"x": 1}},
                                         {"id": "i3", "value": 3}]
    assert pending_interrupts({"values": {}, "tasks": []}) == []


def test_pending_interrupts_reads_an_older_servers_interrupt_id_and_leaves_out_one_without_an_id():
    state = {"interrupts": [{"interrupt_id": "old", "value": 1}, {"value": 2}], "tasks": []}
    assert pending_interrupts(state) == [{"id": "old", "value": 1}]  # an answer is keyed by id: none, no answer


def test_rejoin_a_resumable_run_after_disconnect(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            thread_id, pending, _ = await start_and_wait(client)
            call_id = pending["value"]["tool_call"]["id"]
            answers = {pending["id"]: {call_id: ok_result("read_local_draft", call_id, dict(DRAFT))}}
            stream = client.resume(
                thread_id, ASSISTANT, answers, stream_resumable=True,
                config={"configurable": {"fragment_delay_ms": 40}},
            )
            head = []
            async for part in stream:
                head.append(part)
                if len(head) == 6:
                    break
            await stream.aclose()  # the connection drops mid-run
            run_id = head[0].data["run_id"]
            assert all(p.id for p in head)
            rest = await collect(client.runs.join_stream(thread_id, run_id, last_event_id=head[-1].id))
            everything = await collect(client.runs.join_stream(thread_id, run_id, last_event_id="0"))
            assert [p.data for p in head + rest] == [p.data for p in everything]
            state = await client.threads.get_state(thread_id)
            assert state["values"]["messages"][-1]["content"] == "The card for inspection-42 is on screen."

    run(go())


def test_replay_from_the_waiting_checkpoint_does_not_ask_the_browser_again(agent_server):
    async def go():
        async with AgentServerClient(agent_server) as client:
            thread_id, pending, _ = await start_and_wait(client)
            call_id = pending["value"]["tool_call"]["id"]
            answer = {call_id: ok_result("read_local_draft", call_id, dict(DRAFT))}
            await collect(client.resume(thread_id, ASSISTANT, {pending["id"]: answer}))
            history = [s async for page in client.threads.iter_history(thread_id, page_size=50) for s in page]
            [waiting] = [s for s in history if s["tasks"] and s["tasks"][0]["interrupts"]]

            replay = await collect(client.runs.stream(
                thread_id, ASSISTANT, input=None, checkpoint_id=waiting["checkpoint"]["checkpoint_id"]))
            assert interrupt_updates(replay) == []  # the recorded answer is reused
            state = await client.threads.get_state(thread_id)
            assert pending_interrupts(state) == [] and state["next"] == []
            replayed = [m for m in state["values"]["messages"] if m["type"] == "tool" and m["tool_call_id"] == call_id]
            assert [m["artifact"] for m in replayed] == [{"answered_by": "ledger"}]
            assert json.loads(replayed[0]["content"])["result"]["site"] == DRAFT["site"]
            assert state["values"]["ui_spec"]["elements"]["card"]["props"]["site"] == DRAFT["site"]
            after = [s async for page in client.threads.iter_history(thread_id, page_size=50) for s in page]
            before_ids = {s["checkpoint"]["checkpoint_id"] for s in history}
            assert before_ids < {s["checkpoint"]["checkpoint_id"] for s in after}

    run(go())
