"""Sitewalk's own client against Aegra on Postgres: the Agent Server API the app relies on.

Threads, run streams, interrupts with ids, resume keyed by interrupt id, history pages with
`before`, update_state + fork, join_stream with Last-Event-ID; and, each with a test, where Aegra
answers differently from `langgraph dev`.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from durable_helpers import ASSISTANT, DRAFT, collect, draft_answer, run, start_and_wait, start_message

from sitewalk.agentserver import AgentServerClient, UnprocessableEntity, pending_interrupts
from sitewalk_shared.contracts.envelope import ok_result

pytestmark = pytest.mark.durable


def test_interrupt_with_id_and_resume_by_id(durable_server):
    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, parts = await start_and_wait(client)
            assert parts[0].event == "metadata" and parts[0].data["run_id"]
            streamed = [i for p in parts if p.event == "updates" for i in p.data.get("__interrupt__", [])]
            assert streamed == [pending]  # the stream and the state name the same interrupt, same id
            call = pending["value"]["tool_call"]
            assert pending["value"]["type"] == "tool" and call["name"] == "read_local_draft"
            assert call["args"] == {"inspection_id": "inspection-42"} and pending["id"]

            await collect(client.resume(thread_id, ASSISTANT, draft_answer(pending)))
            final = await client.threads.get_state(thread_id)
            assert final["next"] == [] and pending_interrupts(final) == []
            assert final["values"]["ui_spec"]["elements"]["card"]["props"]["site"] == DRAFT["site"]
            assert final["values"]["messages"][-1]["content"] == "The card for inspection-42 is on screen."

    run(go())


def test_thread_get_has_no_values_so_the_state_is_read(durable_server):
    """Aegra's GET /threads/{id} has no `values` or `interrupts` (langgraph dev's has): read the state."""

    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, _ = await start_and_wait(client)
            thread = await client.threads.get(thread_id)
            assert thread["thread_id"] == thread_id and thread["status"] == "interrupted"
            assert "values" not in thread and "interrupts" not in thread
            state = await client.threads.get_state(thread_id)
            assert pending_interrupts(state) == [pending] and state["values"]["messages"]

    run(go())


def test_history_pages_with_before(durable_server):
    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, _ = await start_and_wait(client)
            await collect(client.resume(thread_id, ASSISTANT, draft_answer(pending)))
            pages = [page async for page in client.threads.iter_history(thread_id, page_size=2)]
            assert len(pages) >= 3 and all(len(p) <= 2 for p in pages)
            history = [s for page in pages for s in page]
            everything = await client.threads.get_history(thread_id, limit=1000)
            ids = [s["checkpoint"]["checkpoint_id"] for s in history]
            assert ids == [s["checkpoint"]["checkpoint_id"] for s in everything]
            assert len(set(ids)) == len(ids) and ids == sorted(ids, reverse=True)
            for newer, older in zip(history, history[1:], strict=False):
                assert newer["parent_checkpoint"]["checkpoint_id"] == older["checkpoint"]["checkpoint_id"]
            assert history[-1]["parent_checkpoint"] is None

    run(go())


def test_update_state_and_fork(durable_server):
    """Answer the same tool call differently from the checkpoint that waited on it: two branches, none lost."""

    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, _ = await start_and_wait(client)
            await collect(client.resume(thread_id, ASSISTANT, draft_answer(pending)))
            before = await client.threads.get_history(thread_id, limit=1000)
            [waiting] = [s for s in before if s["next"] == ["tools"] and s["tasks"] and s["tasks"][0]["interrupts"]]
            call_id = pending["value"]["tool_call"]["id"]
            tool_message = {"type": "tool", "tool_call_id": call_id, "name": "read_local_draft",
                            "content": json.dumps(ok_result("read_local_draft", call_id, {**DRAFT, "risk": "low"}))}
            fork_point = waiting["checkpoint"]["checkpoint_id"]
            new = await client.fork(thread_id, fork_point, values={"messages": [tool_message]}, as_node="tools")
            assert new["checkpoint_id"] and new["checkpoint_id"] != fork_point
            branch = await collect(
                client.runs.stream(thread_id, ASSISTANT, input=None, checkpoint_id=new["checkpoint_id"]))
            assert not any(p.event == "error" for p in branch)
            after = await client.threads.get_state(thread_id)
            assert after["values"]["ui_spec"]["elements"]["risk"]["props"]["level"] == "low"

            full = await client.threads.get_history(thread_id, limit=1000)
            assert {s["checkpoint"]["checkpoint_id"] for s in before} < {s["checkpoint"]["checkpoint_id"] for s in full}
            children: dict[str, list[str]] = defaultdict(list)
            for s in full:
                if s["parent_checkpoint"]:
                    children[s["parent_checkpoint"]["checkpoint_id"]].append(s["checkpoint"]["checkpoint_id"])
            assert len(children[fork_point]) == 2
            old_end = await client.threads.get_state(thread_id, checkpoint_id=before[0]["checkpoint"]["checkpoint_id"])
            assert old_end["values"]["ui_spec"]["elements"]["risk"]["props"]["level"] == "high"

    run(go())


def test_run_without_input_or_checkpoint_is_refused(durable_server):
    """Aegra refuses `input: null` with neither command nor checkpoint (422, a typed error naming the
    fields); `{}` starts a run, and `null` with the thread's checkpoint continues from it."""

    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, _ = await start_and_wait(client)
            with pytest.raises(UnprocessableEntity) as info:
                await collect(client.runs.stream(thread_id, ASSISTANT, input=None))
            assert "checkpoint" in str(info.value)
            state = await client.threads.get_state(thread_id)
            assert pending_interrupts(state) == [pending]  # the refusal lost nothing

            current = state["checkpoint"]["checkpoint_id"]
            again = await collect(client.runs.stream(thread_id, ASSISTANT, input=None, checkpoint_id=current))
            assert not any(p.event == "error" for p in again)
            assert pending_interrupts(await client.threads.get_state(thread_id))[0]["value"] == pending["value"]

            fresh = await client.threads.create()
            parts = await collect(client.runs.stream(fresh["thread_id"], ASSISTANT, input={}))
            assert parts[0].event == "metadata" and not any(p.event == "error" for p in parts)

    run(go())


def test_join_stream_after_last_event_id(durable_server):
    """A resumable run keeps going when the client leaves; joining with Last-Event-ID gives the rest, once."""

    async def go():
        async with AgentServerClient(durable_server.url) as client:
            thread = await client.threads.create()
            thread_id = thread["thread_id"]
            first = []
            stream = client.runs.stream(thread_id, ASSISTANT, input=start_message("pace_ms=40"),
                                        stream_resumable=True, on_disconnect="continue")
            async for part in stream:
                first.append(part)
                if len(first) == 5:
                    break
            await stream.aclose()
            assert all(p.id for p in first)
            run_id = first[0].data["run_id"]
            rest = await collect(client.runs.join_stream(thread_id, run_id, last_event_id=first[-1].id))
            ids = [p.id for p in first + rest if p.id]
            assert len(ids) == len(set(ids))  # nothing twice
            assert any("__interrupt__" in (p.data or {}) for p in rest if p.event == "updates")
            [pending] = pending_interrupts(await client.threads.get_state(thread_id))
            assert pending["value"]["tool_call"]["name"] == "read_local_draft"

    run(go())


def test_ok_answers_on_aegra(durable_server):
    """Aegra has no GET /ok (404): the client's ok() asks GET /info, so the app's wait for the server ends."""

    async def go():
        async with AgentServerClient(durable_server.url) as client:
            assert await client.ok() is True

    run(go())
