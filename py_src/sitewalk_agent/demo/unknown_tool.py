"""The `unknown-tool` scenario's tool: `measure_noise_level`, which the agent defines and the browser does not
implement (the browser answers not_implemented at once, and the run goes on).

No model is offered it by default (`headless_tools` offers what the browser implements). The scripted model
calls it in that one scenario, so `build_graph` adds this middleware for the scripted model only: the tool
exists in the graph (its call reaches the browser like any headless call) and is named in the model's tool
list only in a conversation whose first message says `script: unknown-tool`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse

from sitewalk_agent.demo.scripted_model import scenario_of
from sitewalk_agent.headless import headless_tool
from sitewalk_shared.contracts.tools import MEASURE_NOISE_LEVEL

__all__ = ["UNKNOWN_TOOL_SCENARIO", "ScriptedUnknownToolMiddleware"]

UNKNOWN_TOOL_SCENARIO = "unknown-tool"


class ScriptedUnknownToolMiddleware(AgentMiddleware):
    """Adds `measure_noise_level` to the graph, offered to the model only in the `unknown-tool` scenario."""

    def __init__(self) -> None:
        super().__init__()
        self.tools = [headless_tool(MEASURE_NOISE_LEVEL)]

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> ModelResponse:
        if scenario_of(request.state.get("messages", [])) != UNKNOWN_TOOL_SCENARIO:
            offered = [t for t in request.tools if getattr(t, "name", None) != MEASURE_NOISE_LEVEL.name]
            request = request.override(tools=offered)
        return await handler(request)
