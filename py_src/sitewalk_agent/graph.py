"""Sitewalk's inspection agent, served by the LangGraph Agent Server (see langgraph.json).

It is LangChain's `create_agent` with Sitewalk's kit (`sitewalk_agent.sitewalk_middleware()`):

    model -> (tool calls?) -> tools (in parallel) -> model -> ... -> UiActionsMiddleware.after_agent

The headless tools (`read_local_draft`, `get_current_location`, ...) interrupt and the browser
answers them; `walk_site` runs the site-walk subgraph (two questions, its own checkpoints, see
`sitewalk_agent.site_walk`) in a node of its own; `render_ui` and inline patch lines keep the
screen on record in `ui_spec`; a screen with a ConfirmButton waits for presses (see
`sitewalk_agent.middleware`). The chat model is the embedded scripted one unless
`SITEWALK_MODEL=provider:model` names a real one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# The server loads this file by path; make both `sitewalk_agent` and `sitewalk` importable even
# when the project is not pip-installed.
_PY_SRC = str(Path(__file__).resolve().parent.parent)
if _PY_SRC not in sys.path:
    sys.path.insert(0, _PY_SRC)

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402
from langgraph.config import get_config  # noqa: E402
from langgraph.prebuilt.tool_node import ToolCallRequest  # noqa: E402
from langgraph.types import Command  # noqa: E402

from sitewalk_agent.middleware import SitewalkState  # noqa: E402
from sitewalk_agent.screens import UI_PROMPT  # noqa: E402
from sitewalk_agent.scripted_model import (  # noqa: E402
    ScriptedInspectionModel,
    orders_latency_of,
    pace_of,
    scenario_of,
)
from sitewalk_agent.site_walk import SiteWalkMiddleware  # noqa: E402
from sitewalk_agent.toolkit import field_review_middleware, sitewalk_middleware  # noqa: E402
from sitewalk_agent.workorders import simulated_latency  # noqa: E402

__all__ = ["SYSTEM_PROMPT", "TOOL_SCHEMAS", "build_graph", "graph", "make_model"]

SYSTEM_PROMPT = (
    "You are Sitewalk, a field-inspection assistant. To see an inspector's draft call "
    "read_local_draft (it runs on their device); when it fails with not_found, call start_blank_draft for "
    "that inspection and show the blank draft so the inspector can fill it in; when it fails with "
    "corrupt_data, tell the inspector (the stored draft is never replaced). save_local_draft, get_current_location and "
    "attach_photo run there too; the inspector may decline (permission_denied), so go on without them. "
    "You may call several of them in one reply: they run at once. " + UI_PROMPT
)


def make_model() -> BaseChatModel:
    """The chat model: the scripted one, or `SITEWALK_MODEL=provider:model` for a real one."""
    name = os.environ.get("SITEWALK_MODEL", "").strip()
    if not name or name == "scripted":
        return ScriptedInspectionModel()
    from langchain.chat_models import init_chat_model

    return init_chat_model(name)


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


class ScriptedModelFailure(RuntimeError):
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


def build_graph(model: BaseChatModel | None = None) -> Any:
    """The inspection agent: create_agent with Sitewalk's middleware (and pacing for the scripted model)."""
    model = model or _BASE_MODEL
    middleware: list[AgentMiddleware[Any]] = [*sitewalk_middleware(), *field_review_middleware(), SiteWalkMiddleware()]
    if isinstance(model, ScriptedInspectionModel):
        middleware += [ScriptedPacingMiddleware(), ScriptedFaultsMiddleware()]
    return create_agent(model, system_prompt=SYSTEM_PROMPT, middleware=middleware, state_schema=SitewalkState,
                        name="inspection")


# Built once at import time: constructing a provider model imports packages (file I/O), which
# must not happen on the server's event loop.
_BASE_MODEL = make_model()
graph = build_graph()

# What each tool declares to the model (the contracts' descriptions and argument schemas).
TOOL_SCHEMAS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.args_schema}}
    for m in sitewalk_middleware() for t in getattr(m, "tools", ())
]
