"""The real inspection graph (create_agent with Sitewalk's kit) in memory, as the server-side tests start it.

    graph, draft_read = await confirm_screen(config, DRAFT)  # waits on the screen's ConfirmButton
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from sitewalk_agent import graph as G
from sitewalk_shared.contracts.envelope import ok_result


def in_memory_graph() -> Any:
    """A fresh graph with its own InMemorySaver and InMemoryStore (nothing shared between tests)."""
    graph = G.build_graph()
    graph.checkpointer, graph.store = InMemorySaver(), InMemoryStore()
    return graph


async def confirm_screen(config: dict[str, Any], draft: dict[str, Any]) -> tuple[Any, Any]:
    """A fresh graph whose thread ran `script: confirm` and got `draft` from the headless read_local_draft:
    it waits on the inspection screen's ConfirmButton. Returns (graph, the answered read_local_draft interrupt)."""
    graph = in_memory_graph()
    await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42\nscript: confirm")]}, config)
    [pending] = (await graph.aget_state(config)).interrupts
    cid = pending.value["tool_call"]["id"]
    await graph.ainvoke(Command(resume={pending.id: {cid: ok_result("read_local_draft", cid, draft)}}), config)
    return graph, pending
