"""The real LangChain provider clients against the provider stand-in (tests/provider_standin): the stand-in
speaks each provider's documented streaming format well enough that `langchain-openai` and
`langchain-anthropic` assemble its parallel tool calls, and `make_model` reaches it through
`SITEWALK_MODEL` and the provider's own base-URL and key variables. The inspection graph, run in-process
on such a model, offers it exactly the tools the browser implements."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage
from provider_standin import PROVIDERS
from provider_standin.conversation import from_anthropic, from_openai
from provider_standin.wire import anthropic_events, openai_events

from sitewalk_agent.models import make_model
from sitewalk_shared.contracts.tools import BROWSER_TOOL_CONTRACTS

PARALLEL = "Start inspection inspection-42\nstandin: parallel"


@pytest.fixture(params=PROVIDERS)
def provider_model(request, standin, monkeypatch):
    """(provider, the chat model `make_model` builds from the stand-in's environment)."""
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "SITEWALK_MODEL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in standin.env(request.param).items():
        monkeypatch.setenv(key, value)
    return request.param, make_model()


def _streamed(model, messages, tools):
    async def go():
        chunks = [c async for c in model.bind_tools(tools).astream(messages)]
        merged = chunks[0]
        for c in chunks[1:]:
            merged = merged + c
        return chunks, merged

    return asyncio.run(go())


def _tools():
    from sitewalk_agent.headless import headless_tools

    return headless_tools()


def test_the_client_streams_two_parallel_calls_and_assembles_each_by_its_index(provider_model, standin):
    provider, model = provider_model
    before = len(standin.of(provider))
    chunks, merged = _streamed(model, [HumanMessage(PARALLEL)], _tools())
    assert len(standin.of(provider)) == before + 1 and standin.of(provider)[-1].body["stream"] is True
    assert isinstance(merged, AIMessageChunk)
    assert [c["name"] for c in merged.tool_calls] == ["read_local_draft", "get_current_location"]
    assert merged.tool_calls[0]["args"] == {"inspection_id": "inspection-42"}
    assert merged.tool_calls[1]["args"] == {"purpose": "Record where the inspection took place."}
    assert len({c["id"] for c in merged.tool_calls}) == 2
    fragments = [tc for c in chunks for tc in c.tool_call_chunks]
    assert len(fragments) > 4 and {tc["index"] for tc in fragments} == ({0, 1} if provider == "openai" else {1, 2})
    assert "parallel" in standin.of(provider)[-1].conversation.first_user_text


def test_openai_fragments_of_the_two_calls_arrive_interleaved():
    """The documented shape: later deltas carry only the index, and a client must not assume one call at a time."""
    from provider_standin.script import Reply

    reply = Reply("", [("a", {"x": "1" * 40}), ("b", {"y": "2" * 40})])
    indexes = []
    for event in openai_events(reply, "m", include_usage=True):
        if event.startswith(b"data: {"):
            data = json.loads(event[6:])
            for choice in data["choices"]:
                indexes += [tc["index"] for tc in choice["delta"].get("tool_calls", []) if "id" not in tc]
    assert indexes[:4] == [0, 1, 0, 1]


def test_anthropic_streams_a_tool_use_block_with_input_json_deltas():
    from provider_standin.script import Reply

    events = anthropic_events(Reply("hi", [("a", {"x": 1})]), "m")
    kinds = [json.loads(e.split(b"data: ", 1)[1])["type"] for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == 2 and kinds.count("content_block_stop") == 2


def test_a_tool_result_goes_back_in_each_providers_own_shape(provider_model, standin):
    """The model's second turn sees the result of each call, read from the provider's request body."""
    from langchain_core.messages import ToolMessage

    provider, model = provider_model
    _, first = _streamed(model, [HumanMessage(PARALLEL)], _tools())
    results = [ToolMessage(json.dumps({"ok": True, "n": k}), tool_call_id=c["id"], name=c["name"])
               for k, c in enumerate(first.tool_calls)]
    _, second = _streamed(model, [HumanMessage(PARALLEL), first, *results], _tools())
    assert second.text == "Both answered. read_local_draft: ok. get_current_location: ok." and not second.tool_calls
    sent = standin.of(provider)[-1].body
    if provider == "anthropic":
        assert any(b.get("type") == "tool_result" for m in sent["messages"] if isinstance(m["content"], list)
                   for b in m["content"])
        assert from_anthropic(sent).model_turns == 1
    else:
        assert [m["role"] for m in sent["messages"]][-2:] == ["tool", "tool"]
        assert from_openai(sent).model_turns == 1


def test_a_real_model_is_offered_the_tools_the_browser_implements_and_never_measure_noise_level(
        provider_model, standin):
    from langgraph.checkpoint.memory import InMemorySaver

    from sitewalk_agent.graph import build_graph

    provider, model = provider_model
    graph = build_graph(model)
    graph.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": f"offered-{provider}"}}
    asyncio.run(graph.ainvoke({"messages": [HumanMessage(PARALLEL)]}, config))
    offered = set(standin.of(provider)[-1].conversation.tools_offered)
    assert set(BROWSER_TOOL_CONTRACTS) <= offered and "render_ui" in offered and "create_work_order" in offered
    assert "measure_noise_level" not in offered
    pending = asyncio.run(graph.aget_state(config)).interrupts
    assert sorted(i.value["tool_call"]["name"] for i in pending) == ["get_current_location", "read_local_draft"]
