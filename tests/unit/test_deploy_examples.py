"""The worked examples of docs/deploy.md run: a headless tool end to end, and a catalog component.

The tool: an agent built with the kit and the example contract calls `read_battery_level`; its tool
interrupts with the headless wire shape; the example's browser registry runs the implementation and
answers with the envelope; resumed with it, the agent hands the model the checked result (or the typed
failure). The component: a spec using `MeterReading` validates and renders through the jinja2 registry,
and a prop outside its model is a typed `invalid_props` issue. The page's snippets are these files' text.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from examples.battery_agent import battery_agent
from examples.battery_browser import battery_registry
from examples.battery_contract import READ_BATTERY_LEVEL
from examples.meter_reading import in_catalog
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from sitewalk.ui.render import REGISTRY, render_spec
from sitewalk_shared.contracts.catalog import CATALOG
from sitewalk_shared.ui_spec import validate_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "examples"
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


class _Replies(GenericFakeChatModel):
    """A fake chat model that says the given messages in turn (tools are bound by the agent)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> _Replies:
        return self


def _ask_battery() -> AIMessage:
    call = {"id": "call_b", "name": "read_battery_level", "args": {"purpose": "Is there charge for the walk?"}}
    return AIMessage("", id="msg_b", tool_calls=[call])


def _battery_run(status: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the interrupt's value, the envelope the model got) for one call, the device reporting `status`."""
    agent = battery_agent(_Replies(messages=iter([_ask_battery(), AIMessage("ok", id="msg_end")])))
    agent.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t-battery"}}

    async def device() -> dict[str, Any] | None:
        return status

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        await agent.ainvoke({"messages": [HumanMessage("check the battery")]}, config)
        [pending] = (await agent.aget_state(config)).interrupts
        answer = await battery_registry(device).answer(pending.value)
        await agent.ainvoke(Command(resume={pending.id: answer}), config)
        values = (await agent.aget_state(config)).values
        [message] = [m for m in values["messages"] if isinstance(m, ToolMessage)]
        return pending.value, json.loads(str(message.content))

    return asyncio.run(go())


def test_the_example_tool_interrupts_with_the_headless_shape_and_the_browser_answers_it():
    asked, envelope = _battery_run({"level": 0.83, "charging": False})
    assert asked == {"type": "tool",
                     "tool_call": {"id": "call_b", "name": "read_battery_level",
                                   "args": {"purpose": "Is there charge for the walk?"}},
                     "contract": {"protocol": "sitewalk.headless/1", "digest": READ_BATTERY_LEVEL.digest}}
    assert envelope["ok"] is True and envelope["tool_call_id"] == "call_b"
    assert envelope["result"] == {"percent": 83, "charging": False}


def test_the_example_tool_without_the_browser_api_is_a_typed_failure_for_the_model():
    _, envelope = _battery_run(None)
    assert envelope["ok"] is False and envelope["error"]["code"] == "unavailable"
    assert "battery" in envelope["error"]["message"]


def test_a_reading_outside_the_contract_is_not_passed_on():
    """A device reading outside the contract (151 %) cannot make a result: a typed failure naming the field."""

    async def broken() -> dict[str, Any] | None:
        return {"level": 1.51, "charging": True}

    call = {"id": "c1", "name": "read_battery_level", "args": {"purpose": "why not"}}
    envelope = asyncio.run(battery_registry(broken).run(call))
    assert envelope["ok"] is False and envelope["error"]["code"] == "internal"
    assert "percent" in envelope["error"]["message"] and "result" not in envelope


GAUGE = {"root": "card", "elements": {
    "card": {"type": "InspectionCard", "props": {"title": "Boiler room", "site": "Pier 4"}, "children": ["gauge"]},
    "gauge": {"type": "MeterReading", "props": {"label": "Boiler pressure", "value": 2.5, "unit": "bar",
                                                "status": "warning"}},
}}


def test_the_example_component_validates_and_renders_through_the_registry():
    with in_catalog():
        assert validate_spec(GAUGE) == []
        html = str(render_spec(GAUGE))
    assert ('<div class="sw-meter sw-meter-warning" data-sw-id="gauge" role="group" aria-label="Boiler pressure">'
            '<span class="sw-label">Boiler pressure</span> <span class="sw-meter-value">2.5 bar</span></div>') in html
    assert 'data-sw-id="card"' in html


def test_the_example_component_escapes_what_the_model_writes():
    spec = {"root": "g", "elements": {"g": {"type": "MeterReading",
                                            "props": {"label": "<b>x</b>", "value": 1, "unit": "V"}}}}
    with in_catalog():
        html = str(render_spec(spec))
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_a_prop_outside_the_example_component_is_a_typed_issue():
    bad = json.loads(json.dumps(GAUGE))
    bad["elements"]["gauge"]["props"]["unit"] = "psi"
    with in_catalog():
        [issue] = validate_spec(bad)
    assert (issue.code, issue.element) == ("invalid_props", "gauge")
    assert issue.message.startswith("MeterReading.unit:") and "unit" in issue.repair


def test_the_example_component_is_not_in_the_catalog_outside_its_block():
    assert "MeterReading" not in CATALOG and "MeterReading" not in REGISTRY
    [issue] = validate_spec(GAUGE)
    assert issue.code == "unknown_type"
    with in_catalog():
        pass
    assert "MeterReading" not in CATALOG and "MeterReading" not in REGISTRY


def snippets(doc: str) -> list[tuple[str, str]]:
    """The page's fenced blocks as (language, text), in order."""
    return [(lang, body) for lang, body in FENCE.findall(doc)]


def example_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.iterdir()) if p.suffix in (".py", ".j2"))


def test_the_pages_python_and_template_snippets_are_the_examples_code():
    blocks = [(lang, body) for lang, body in snippets(DEPLOY_DOC.read_text(encoding="utf-8"))
              if lang in ("python", "jinja")]
    assert len(blocks) >= 5, "the how-to sections show the examples' code"
    sources = example_sources()
    for lang, body in blocks:
        assert body.strip() in sources, f"a {lang} snippet of deploy.md is not in tests/unit/examples:\n{body}"


def test_a_snippet_that_drifted_from_the_examples_is_caught():
    """The negative control: one changed character in a snippet is no longer found in the sources."""
    [(_, body), *_] = [b for b in snippets(DEPLOY_DOC.read_text(encoding="utf-8")) if b[0] == "python"]
    assert body.strip() in example_sources()
    assert body.strip().replace("(", "[", 1) not in example_sources()
