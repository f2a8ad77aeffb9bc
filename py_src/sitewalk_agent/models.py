"""The one place `SITEWALK_MODEL` is read: `provider:model` names a real chat model (LangChain's
`init_chat_model`, through the provider's integration package: the `openai`, `anthropic` or `providers` extra);
unset, empty or `scripted` gives the embedded scripted one (`sitewalk_agent.demo`).

A name LangChain cannot place, or a provider whose package is not installed, is a `ModelConfigError` that names
the setting and the extra to install; the provider client's own checks (a missing key) are left to it."""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from sitewalk_agent.demo import ScriptedInspectionModel
from sitewalk_shared.errors import SitewalkError

__all__ = ["PROVIDER_EXTRAS", "ModelConfigError", "make_model"]

# The provider prefixes whose LangChain package the server distribution carries as an extra (pyproject.toml).
PROVIDER_EXTRAS = {"openai": "openai", "anthropic": "anthropic"}


class ModelConfigError(SitewalkError, ValueError):
    """`SITEWALK_MODEL` names no chat model this server can build."""


def make_model() -> BaseChatModel:
    """The chat model: the scripted one, or `SITEWALK_MODEL=provider:model` for a real one."""
    name = os.environ.get("SITEWALK_MODEL", "").strip()
    if not name or name == "scripted":
        return ScriptedInspectionModel()
    from langchain.chat_models import init_chat_model

    provider = name.split(":", 1)[0] if ":" in name else ""
    try:
        return init_chat_model(name)
    except ImportError as exc:
        extra = PROVIDER_EXTRAS.get(provider)
        hint = f"pip install '.[{extra}]'" if extra else f"install LangChain's package for {provider or 'it'}"
        raise ModelConfigError(f"SITEWALK_MODEL={name!r}: the provider's package is not installed ({hint})") \
            from exc
    except ValueError as exc:
        raise ModelConfigError(f"SITEWALK_MODEL={name!r} names no chat model LangChain can build: use "
                               f"provider:model, e.g. openai:gpt-4.1-mini (or unset it for the scripted model); "
                               f"{exc}") from exc
