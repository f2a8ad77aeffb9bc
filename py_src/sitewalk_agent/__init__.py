"""Sitewalk for LangChain agents: headless tools, generative UI and ConfirmButton actions as a kit.

Add Sitewalk's browser capabilities to your own `create_agent` agent:

    from langchain.agents import create_agent
    from sitewalk_agent import UI_PROMPT, sitewalk_middleware

    graph = create_agent("openai:gpt-4o-mini", tools=[...], middleware=sitewalk_middleware(),
                         system_prompt="You help field inspectors. " + UI_PROMPT)

Or pick the parts: `headless_tool(contract)` (a LangChain tool whose body the browser runs),
`render_ui` (a tool that validates and records a screen), and the middleware classes.
`sitewalk_agent.demo.ScriptedInspectionModel` is a deterministic chat model for demos and tests (no key, no network).
This package runs on the agent server and imports nothing of the browser side (no jinja2, no `js`).
"""

from sitewalk_agent.headless import headless_tool, headless_tools
from sitewalk_agent.middleware import (
    GenerativeUiMiddleware,
    HeadlessToolsMiddleware,
    SitewalkState,
    UiActionsMiddleware,
)
from sitewalk_agent.screens import UI_PROMPT, render_ui
from sitewalk_agent.toolkit import sitewalk_middleware

__all__ = [
    "UI_PROMPT",
    "GenerativeUiMiddleware",
    "HeadlessToolsMiddleware",
    "SitewalkState",
    "UiActionsMiddleware",
    "headless_tool",
    "headless_tools",
    "render_ui",
    "sitewalk_middleware",
]
