"""Sitewalk's inspection agent, served by the LangGraph Agent Server (see langgraph.json).

It is LangChain's `create_agent` with Sitewalk's kit (`sitewalk_agent.sitewalk_middleware()`):

    model -> (tool calls?) -> tools (in parallel) -> model -> ... -> UiActionsMiddleware.after_agent

The headless tools (`read_local_draft`, `get_current_location`, ...) interrupt and the browser
answers them; `walk_site` runs the site-walk subgraph (two questions, its own checkpoints, see
`sitewalk_agent.site_walk`) in a node of its own; `render_ui` and inline patch lines keep the
screen on record in `ui_spec`; a screen with a ConfirmButton waits for presses (see
`sitewalk_agent.middleware`). The chat model is `sitewalk_agent.models.make_model()`: the scripted
one of `sitewalk_agent.demo` (with its pacing and faults) unless `SITEWALK_MODEL=provider:model` names a real one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# The server loads this file by path; make both `sitewalk_agent` and `sitewalk` importable even
# when the project is not pip-installed.
_PY_SRC = str(Path(__file__).resolve().parent.parent)
if _PY_SRC not in sys.path:
    sys.path.insert(0, _PY_SRC)

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import AgentMiddleware  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402

from sitewalk_agent import tracing  # noqa: E402
from sitewalk_agent.demo import (  # noqa: E402
    ScriptedFaultsMiddleware,
    ScriptedInspectionModel,
    ScriptedPacingMiddleware,
    ScriptedUnknownToolMiddleware,
)
from sitewalk_agent.middleware import SitewalkState  # noqa: E402
from sitewalk_agent.models import make_model  # noqa: E402
from sitewalk_agent.screens import UI_PROMPT  # noqa: E402
from sitewalk_agent.site_walk import SiteWalkMiddleware  # noqa: E402
from sitewalk_agent.toolkit import field_review_middleware, sitewalk_middleware  # noqa: E402

__all__ = ["SYSTEM_PROMPT", "TOOL_SCHEMAS", "build_graph", "graph"]

SYSTEM_PROMPT = (
    "You are Sitewalk, a field-inspection assistant. To see an inspector's draft call "
    "read_local_draft (it runs on their device); when it fails with not_found, call start_blank_draft for "
    "that inspection and show the blank draft so the inspector can fill it in; when it fails with "
    "corrupt_data, tell the inspector (the stored draft is never replaced). save_local_draft, get_current_location and "
    "attach_photo run there too; the inspector may decline (permission_denied), so go on without them. "
    "You may call several of them in one reply: they run at once. " + UI_PROMPT
)


def build_graph(model: BaseChatModel | None = None) -> Any:
    """The inspection agent: create_agent with Sitewalk's middleware (and, for the scripted model, its pacing,
    faults and the unknown-tool scenario's tool)."""
    model = model or _BASE_MODEL
    middleware: list[AgentMiddleware[Any]] = [*sitewalk_middleware(), *field_review_middleware(), SiteWalkMiddleware()]
    if isinstance(model, ScriptedInspectionModel):
        middleware += [ScriptedPacingMiddleware(), ScriptedFaultsMiddleware(), ScriptedUnknownToolMiddleware()]
    return create_agent(model, system_prompt=SYSTEM_PROMPT, middleware=middleware, state_schema=SitewalkState,
                        name="inspection")


if tracing.enabled():  # SITEWALK_TRACES: the tracer provider and instrumentation from the server's start
    from sitewalk_agent.tracing.setup import ensure_installed  # noqa: E402

    ensure_installed()

# Built once at import time: constructing a provider model imports packages (file I/O), which
# must not happen on the server's event loop.
_BASE_MODEL = make_model()
graph = build_graph()

# What each tool declares to the model (the contracts' descriptions and argument schemas).
TOOL_SCHEMAS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.args_schema}}
    for m in sitewalk_middleware() for t in getattr(m, "tools", ())
]
