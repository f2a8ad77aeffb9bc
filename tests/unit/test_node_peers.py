"""The differential tests against npm peers fail without node when SITEWALK_REQUIRE_NODE=1 (`./sw test`, CI),
and only skip on a developer's machine without it: the JS SDK's test as well as json-render's."""

from __future__ import annotations

import shutil

import pytest
from json_render_peer import require_node
from test_js_sdk_parallel import test_the_js_sdk_answers_both_parallel_headless_tools_in_one_command as sdk_test


@pytest.fixture
def no_node(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    return monkeypatch


def test_required_node_missing_fails_every_differential_test(no_node):
    no_node.setenv("SITEWALK_REQUIRE_NODE", "1")
    with pytest.raises(pytest.fail.Exception, match="SITEWALK_REQUIRE_NODE=1"):
        require_node("@json-render/core")
    with pytest.raises(pytest.fail.Exception, match="langgraph-sdk"):
        sdk_test("http://127.0.0.1:9")  # fails before it would reach a server


def test_without_the_requirement_a_missing_node_skips(no_node):
    no_node.delenv("SITEWALK_REQUIRE_NODE", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require_node("@json-render/core")
    with pytest.raises(pytest.skip.Exception):
        sdk_test("http://127.0.0.1:9")
