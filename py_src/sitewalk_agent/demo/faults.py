"""Pacing and faults on demand for the scripted model (demos and tests, never a real model's run).

`build_graph` adds these two middlewares only when the model is `ScriptedInspectionModel`; what they
do is chosen by the first message (`pace_ms=N`, `orders_latency_ms=N`, `script: fail`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import ToolMessage
from langgraph.config import get_config
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from sitewalk_agent.demo.scripted_model import orders_latency_of, pace_of, scenario_of
from sitewalk_agent.workorders import simulated_latency
from sitewalk_shared.errors import SitewalkError

__all__ = ["FAILURE_MESSAGE", "ScriptedFaultsMiddleware", "ScriptedModelFailure", "ScriptedPacingMiddleware"]

MAX_FRAGMENT_DELAY_MS = 2000
SLOW_UI_DELAY_MS = 40  # pacing of these scenarios, so a browser sees the screen build up
PACED_SCENARIOS = ("slow-ui", "patch-ui")


class ScriptedPacingMiddleware(AgentMiddleware):
    """Paces the scripted model's fragments (demos, slow-stream tests): `configurable.fragment_delay_ms`,
    else `pace_ms=N` in the first message, else the paced scenarios' default."""

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> ModelResponse:
        messages = request.state.get("messages", [])
        delay = (get_config().get("configurable") or {}).get("fragment_delay_ms")
        if delay is None:
            delay = pace_of(messages)
        if delay is None and scenario_of(messages) in PACED_SCENARIOS:
            delay = SLOW_UI_DELAY_MS
        if isinstance(delay, (int, float)) and delay > 0:
            seconds = min(float(delay), MAX_FRAGMENT_DELAY_MS) / 1000.0
            request = request.override(model_settings={**request.model_settings, "fragment_delay": seconds})
        return await handler(request)


class ScriptedModelFailure(SitewalkError, RuntimeError):
    """The model provider failing on purpose (`script: fail`): the run ends in error."""


FAILURE_MESSAGE = "the model provider did not answer (script: fail)"


class ScriptedFaultsMiddleware(AgentMiddleware):
    """Faults on demand (demos, tests): `orders_latency_ms=N` in the first message makes every tool call of
    the thread's runs see a work-order system that takes N ms (`outcome_unknown`); `script: fail` makes the
    model fail once the device has answered its first call, so the run that resumed it ends in error."""

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> ModelResponse:
        messages = request.state.get("messages", [])
        if scenario_of(messages) == "fail" and any(isinstance(m, ToolMessage) for m in messages):
            raise ScriptedModelFailure(FAILURE_MESSAGE)
        return await handler(request)

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]
                              ) -> ToolMessage | Command[Any]:
        latency = orders_latency_of(request.state.get("messages", []))
        if latency is None:
            return await handler(request)
        token = simulated_latency.set(latency / 1000.0)  # copied into the tool's tasks and worker threads
        try:
            return await handler(request)
        finally:
            simulated_latency.reset(token)
