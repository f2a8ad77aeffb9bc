"""A minimal agent with Sitewalk added, built only from `sitewalk_agent`'s public API.

Served by langgraph.json as the `example` graph (the app talks to it with `?assistant=example`).
Set `SITEWALK_MODEL=provider:model` for a real chat model; the embedded scripted one otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The server loads this file by path: make `sitewalk_agent` importable without installing it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain.agents import create_agent  # noqa: E402

from sitewalk_agent import UI_PROMPT, ScriptedInspectionModel, sitewalk_middleware  # noqa: E402

graph = create_agent(
    os.environ.get("SITEWALK_MODEL") or ScriptedInspectionModel(),
    middleware=sitewalk_middleware(),
    system_prompt="You help field inspectors with their drafts. " + UI_PROMPT,
    name="example",
)
