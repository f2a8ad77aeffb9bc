"""A minimal agent with Sitewalk added, built only from `sitewalk_agent`'s public API.

Served by langgraph.json as the `example` graph (the app talks to it with `?assistant=example`).
The model is `make_model()`: `SITEWALK_MODEL=provider:model` for a real chat model, the scripted one otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

# The server loads this file by path: make `sitewalk_agent` importable without installing it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain.agents import create_agent  # noqa: E402

from sitewalk_agent import UI_PROMPT, sitewalk_middleware  # noqa: E402
from sitewalk_agent.models import make_model  # noqa: E402

graph = create_agent(
    make_model(),
    middleware=sitewalk_middleware(),
    system_prompt="You help field inspectors with their drafts. " + UI_PROMPT,
    name="example",
)
