"""Faults on the durable server: a `kill -9` while a thread waits on a headless tool loses nothing.

After the restart the thread still waits on the same interrupt (same id, same tool call), the
browser's answer is taken once, and sending the same answer again changes nothing.
"""

from __future__ import annotations

import pytest
from durable_helpers import ASSISTANT, collect, draft_answer, run, start_and_wait

from sitewalk.agentserver import AgentServerClient, AgentServerError, ServerUnreachable, pending_interrupts


def test_kill_9_while_waiting_on_a_headless_tool(durable_server):
    async def until_waiting():
        async with AgentServerClient(durable_server.url) as client:
            thread_id, pending, _ = await start_and_wait(client)
            return thread_id, pending

    async def unreachable(thread_id):
        async with AgentServerClient(durable_server.url) as client:
            with pytest.raises(ServerUnreachable):
                await client.threads.get_state(thread_id)

    async def after_restart(thread_id, pending):
        async with AgentServerClient(durable_server.url) as client:
            state = await client.threads.get_state(thread_id)
            assert pending_interrupts(state) == [pending]  # same id, same tool call and args
            answer = draft_answer(pending)
            await collect(client.resume(thread_id, ASSISTANT, answer))
            with pytest.raises(AgentServerError):  # a duplicate delivery is refused...
                await collect(client.resume(thread_id, ASSISTANT, answer))
            final = await client.threads.get_state(thread_id)
            messages = final["values"]["messages"]
            call_id = pending["value"]["tool_call"]["id"]
            # ...and the result was taken once: one tool message for the call, one closing text
            assert [m["tool_call_id"] for m in messages if m["type"] == "tool"].count(call_id) == 1
            assert [m["content"] for m in messages].count("The card for inspection-42 is on screen.") == 1
            assert final["next"] == [] and pending_interrupts(final) == []

    thread_id, pending = run(until_waiting())
    durable_server.kill_server()
    assert not durable_server.servers[0].alive() and durable_server.servers[0].process.returncode == -9
    run(unreachable(thread_id))
    durable_server.restart_server()
    durable_server.check()
    run(after_restart(thread_id, pending))
