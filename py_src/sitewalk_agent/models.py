"""The one place `SITEWALK_MODEL` is read: `provider:model` names a real chat model (LangChain's
`init_chat_model`); unset, empty or `scripted` gives the embedded scripted one (`sitewalk_agent.demo`)."""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from sitewalk_agent.demo import ScriptedInspectionModel

__all__ = ["make_model"]


def make_model() -> BaseChatModel:
    """The chat model: the scripted one, or `SITEWALK_MODEL=provider:model` for a real one."""
    name = os.environ.get("SITEWALK_MODEL", "").strip()
    if not name or name == "scripted":
        return ScriptedInspectionModel()
    from langchain.chat_models import init_chat_model

    return init_chat_model(name)
