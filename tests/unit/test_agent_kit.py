"""The kit's pieces in a create_agent agent: headless tools, parallel calls, screens, the server's imports."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from sitewalk_agent import (
    UI_PROMPT,
    HeadlessToolsMiddleware,
    headless_tool,
    render_ui,
    sitewalk_middleware,
)
from sitewalk_agent.demo import ScriptedInspectionModel
from sitewalk_shared.contracts.envelope import ok_result
from sitewalk_shared.contracts.tools import READ_LOCAL_DRAFT

ROOT = Path(__file__).resolve().parents[2]
DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
FIX = {"latitude": 59.3293, "longitude": 18.0686, "accuracy_m": 12.0, "timestamp": "2026-12-02T10:00:00.000Z",
       "source": "device"}


class _Replies(GenericFakeChatModel):
    """A fake chat model that says the given messages in turn (tools are bound by the agent)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> _Replies:
        return self


def _agent(*replies: AIMessage, store: Any = None, handshake: bool = False) -> Any:
    """An agent of the author's own: one headless tool and render_ui as plain tools, or the tool with
    the handshake middleware (which keeps `client_tools`, the digests the client sent, in the state)."""
    model = _Replies(messages=iter([*replies, AIMessage("ok", id="msg_end")]))
    if handshake:
        agent = create_agent(model, tools=[render_ui], middleware=[HeadlessToolsMiddleware([READ_LOCAL_DRAFT])])
    else:
        agent = create_agent(model, tools=[headless_tool(READ_LOCAL_DRAFT), render_ui])
    agent.checkpointer, agent.store = InMemorySaver(), store
    return agent


def _read(args: dict[str, Any], call_id: str = "call_r") -> AIMessage:
    return AIMessage("", id="msg_r", tool_calls=[{"id": call_id, "name": "read_local_draft", "args": args}])


def _envelopes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(str(m.content)) for m in values["messages"] if isinstance(m, ToolMessage)]


def _run(agent: Any, state: dict[str, Any], thread: str = "t") -> Any:
    config = {"configurable": {"thread_id": thread}}

    async def go():
        await agent.ainvoke(state, config)
        return await agent.aget_state(config)

    return asyncio.run(go())


@pytest.mark.parametrize("state, code", [
    ({}, "invalid_args"),  # filled below with bad arguments
    ({"client_tools": {"read_local_draft": "0" * 16}}, "contract_mismatch"),
])
def test_a_headless_tool_refuses_without_asking_the_browser(state, code):
    args = {"inspection_id": "no spaces allowed"} if code == "invalid_args" else {"inspection_id": "inspection-42"}
    agent = _agent(_read(args), handshake=bool(state))
    snapshot = _run(agent, {"messages": [HumanMessage("go")], **state})
    assert not snapshot.interrupts  # the browser was never asked
    [envelope] = _envelopes(snapshot.values)
    assert envelope["ok"] is False and envelope["error"]["code"] == code and envelope["tool_call_id"] == "call_r"


def test_a_headless_tool_turns_the_sdks_error_into_a_typed_failure():
    agent = _agent(_read({"inspection_id": "inspection-42"}))
    config = {"configurable": {"thread_id": "t-sdk"}}

    async def go():
        await agent.ainvoke({"messages": [HumanMessage("go")]}, config)
        [pending] = (await agent.aget_state(config)).interrupts
        assert pending.value == {"type": "tool", "tool_call": {"id": "call_r", "name": "read_local_draft",
                                                                "args": {"inspection_id": "inspection-42"}},
                                 "contract": {"protocol": pending.value["contract"]["protocol"],
                                              "digest": READ_LOCAL_DRAFT.digest}}
        await agent.ainvoke(Command(resume={pending.id: {"call_r": {"error": "no such key"}}}), config)
        return (await agent.aget_state(config)).values

    [envelope] = _envelopes(asyncio.run(go()))
    assert envelope["ok"] is False and envelope["error"]["code"] == "internal"
    assert "no such key" in envelope["error"]["message"]


def test_a_replay_answers_from_the_ledger_without_asking_again():
    agent = _agent(_read({"inspection_id": "inspection-42"}), store=InMemoryStore())
    config = {"configurable": {"thread_id": "t-replay"}}

    async def go():
        await agent.ainvoke({"messages": [HumanMessage("go")]}, config)
        waiting = await agent.aget_state(config)
        [pending] = waiting.interrupts
        await agent.ainvoke(Command(resume={pending.id: {"call_r": ok_result("read_local_draft", "call_r", DRAFT)}}),
                            config)
        return waiting

    waiting = asyncio.run(go())
    # A fresh model for the replay (the fake's replies are used up): the replayed tool call must not interrupt.
    replay = _agent(store=agent.store)
    replay.checkpointer = agent.checkpointer

    async def again():
        await replay.ainvoke(None, waiting.config)
        return await replay.aget_state(config)

    state = asyncio.run(again())
    assert not state.interrupts
    artifacts = [m.artifact for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert {"answered_by": "ledger"} in artifacts


def test_script_parallel_has_both_calls_pending_at_once_and_one_command_answers_both():
    agent = create_agent(ScriptedInspectionModel(), middleware=sitewalk_middleware(), system_prompt=UI_PROMPT)
    agent.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t-parallel"}}

    async def go():
        await agent.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: parallel")]}, config)
        state = await agent.aget_state(config)
        assert state.next == ("tools", "tools")
        [ai] = [m for m in state.values["messages"] if isinstance(m, AIMessage)]
        assert [c["name"] for c in ai.tool_calls] == ["read_local_draft", "get_current_location"]
        by_name = {i.value["tool_call"]["name"]: i for i in state.interrupts}
        assert sorted(by_name) == ["get_current_location", "read_local_draft"]
        answers = {}
        for name, result in (("read_local_draft", DRAFT), ("get_current_location", FIX)):
            pending = by_name[name]
            call_id = pending.value["tool_call"]["id"]
            answers[pending.id] = {call_id: ok_result(name, call_id, result)}
        await agent.ainvoke(Command(resume=answers), config)
        return (await agent.aget_state(config)).values

    values = asyncio.run(go())
    assert values["ui_spec"]["root"] == "card" and values["inspection_id"] == "inspection-42"
    render = next(m for m in values["messages"] if isinstance(m, AIMessage) and m.tool_calls
                  and m.tool_calls[0]["name"] == "render_ui")
    assert "59.3293, 18.0686" in render.content  # the location answer reached the model with the draft
    assert values["messages"][-1].content == "The card for inspection-42 is on screen."


def test_render_ui_and_inline_screens_are_recorded_by_one_function():
    import sitewalk_agent.inline_ui as inline_ui
    import sitewalk_agent.screens as screens
    import sitewalk_shared.ui_spec.model as model

    assert screens.record_screen is model.record_screen and inline_ui.record_screen is model.record_screen
    agent = create_agent(ScriptedInspectionModel(), middleware=sitewalk_middleware())
    agent.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t-edit"}}

    async def go():
        await agent.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: patch-edit")]}, config)
        [pending] = (await agent.aget_state(config)).interrupts
        call_id = pending.value["tool_call"]["id"]
        draft = {**DRAFT, "risk": "low"}
        await agent.ainvoke(Command(resume={pending.id: {call_id: ok_result("read_local_draft", call_id, draft)}}),
                            config)
        return (await agent.aget_state(config)).values

    spec = asyncio.run(go())["ui_spec"]
    assert spec["identity"]["revision"] == 2 and spec["identity"]["tool_call_id"].endswith(":inline_spec")
    assert spec["elements"]["risk"]["props"]["level"] == "high"


@pytest.mark.parametrize("module", ["sitewalk_agent.graph", "sitewalk_agent.example"])
def test_the_server_side_imports_nothing_of_the_browser_side(module):
    code = (
        "import sys, importlib, json\n"
        f"sys.path.insert(0, {str(ROOT / 'py_src')!r})\n"
        f"importlib.import_module({module!r})\n"
        "banned = ('jinja2', 'js', 'pyodide', 'sitewalk.ui', 'sitewalk.app', 'sitewalk.bridge')\n"
        "print(json.dumps(sorted(m for m in sys.modules if any(m == b or m.startswith(b + '.') for b in banned))))\n"
        "print(json.dumps('sitewalk_shared.ui_spec' in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded, spec_loaded = out.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    assert json.loads(spec_loaded) is True  # the check sees the shared spec package: it really imported the graph
