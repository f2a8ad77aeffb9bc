"""`SITEWALK_MODEL`: unset or `scripted` is the scripted model; `provider:model` a real one; a name that builds
nothing is a typed `ModelConfigError` naming the setting (and, for a missing package, the extra to install)."""

from __future__ import annotations

import sys

import pytest
from langchain.chat_models import base as chat_models_base

from sitewalk_agent.demo import ScriptedInspectionModel
from sitewalk_agent.models import ModelConfigError, make_model
from sitewalk_shared.errors import SitewalkError


@pytest.mark.parametrize("value", ["", "scripted", "  "])
def test_unset_empty_or_scripted_is_the_scripted_model(monkeypatch, value):
    monkeypatch.setenv("SITEWALK_MODEL", value)
    assert isinstance(make_model(), ScriptedInspectionModel)


def test_a_provider_model_is_the_providers_langchain_client(monkeypatch):
    from langchain_anthropic import ChatAnthropic

    monkeypatch.setenv("SITEWALK_MODEL", "anthropic:claude-sonnet-5-5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-not-a-key")
    model = make_model()
    assert isinstance(model, ChatAnthropic) and model.model == "claude-sonnet-5-5"


def test_a_name_langchain_cannot_place_is_a_typed_error_naming_the_setting(monkeypatch):
    monkeypatch.setenv("SITEWALK_MODEL", "nonsense")
    with pytest.raises(ModelConfigError, match=r"SITEWALK_MODEL='nonsense'.*provider:model") as caught:
        make_model()
    assert isinstance(caught.value, SitewalkError) and isinstance(caught.value, ValueError)


def test_a_provider_whose_package_is_missing_names_the_extra_to_install(monkeypatch):
    # init_chat_model keeps each provider's class once imported (an lru_cache on a private helper of
    # langchain's): a test of the same worker that built an OpenAI model before would hide the import.
    creator = getattr(chat_models_base, "_get_chat_model_creator", None)
    if creator is not None:
        creator.cache_clear()
    monkeypatch.setitem(sys.modules, "langchain_openai", None)  # as if not installed: importing it fails
    monkeypatch.setenv("SITEWALK_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-a-key")
    with pytest.raises(ModelConfigError, match=r"not installed \(pip install '\.\[openai\]'\)"):
        make_model()
