"""Generative UI on the server: the `render_ui` tool, and the prompt that names the catalog.

`render_ui` validates a spec with the shared validator (`sitewalk_shared.ui_spec.validate`, the one judge)
and, when it is valid, records it as the screen on record (`ui_spec`) with
`sitewalk_shared.ui_spec.model.record_screen`, the one place a screen gets its identity — inline screens
(`sitewalk_agent.inline_ui`) use it too. An invalid spec leaves `ui_spec` alone; the model gets
every issue with its repair text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command

from sitewalk_agent.headless import tool_message
from sitewalk_shared.contracts.catalog import catalog_json_schema
from sitewalk_shared.ui_spec.model import RENDER_UI_TOOL, RenderUiArgs, record_screen
from sitewalk_shared.ui_spec.validate import validate_spec

__all__ = ["RENDER_UI_DESCRIPTION", "UI_PROMPT", "latest", "render_ui", "render_ui_update"]

RENDER_UI_DESCRIPTION = (
    "Show a screen to the inspector. The spec may only use catalog components: "
    + ", ".join(sorted(catalog_json_schema())) + "."
)

UI_PROMPT = (
    "To show a screen call render_ui with a spec {root, elements}. To change the screen on record you may "
    "instead write RFC 6902 JSON-patch ops after your reply's text, one op a line, each line starting with '{' "
    "(e.g. {\"op\":\"replace\",\"path\":\"/elements/risk/props/level\",\"value\":\"high\"}). "
    "Screens use only these components:\n" + json.dumps(catalog_json_schema(), separators=(",", ":"))
)


def latest(_old: object, new: object) -> object:
    """Reducer: the last write wins (parallel tool calls of one step may each write the key)."""
    return new




def render_ui_update(call: Mapping[str, object], on_record: Mapping[str, object] | None,
                     message_id: str | None) -> tuple[ToolMessage, dict[str, object]]:
    """The tool message and the state update for one `render_ui` call {id, name, args}."""
    spec = call.get("args")
    issues = [issue.to_dict() for issue in validate_spec(spec)]
    if issues or not isinstance(spec, Mapping):  # a spec that is not an object has issues
        return tool_message(call, {"ok": False, "issues": issues}, False), {}
    ui_spec = record_screen(spec, on_record, message_id=message_id, tool_call_id=str(call["id"]))
    return tool_message(call, {"ok": True, "revision": ui_spec["identity"]["revision"]}, True), {"ui_spec": ui_spec}


def _message_of(state: Mapping[str, object], tool_call_id: str) -> str | None:
    """The id of the AI message that made the call (a screen is named after its message too)."""
    messages = state.get("messages") or []
    for message in reversed(messages) if isinstance(messages, list) else ():
        if isinstance(message, AIMessage) and any(c.get("id") == tool_call_id for c in message.tool_calls):
            return message.id
    return None


async def _render_ui(runtime: ToolRuntime, **args: object) -> ToolMessage | Command:
    state: Mapping[str, object] = runtime.state if isinstance(runtime.state, dict) else {}
    tool_call_id = str(runtime.tool_call_id)
    call = {"id": tool_call_id, "name": RENDER_UI_TOOL, "args": args}
    on_record = state.get("ui_spec")
    message, update = render_ui_update(call, on_record if isinstance(on_record, Mapping) else None,
                                       _message_of(state, tool_call_id))
    return Command(update={"messages": [message], **update}) if update else message


# The JSON schema is what the model sees; the arguments reach the validator as they came, so a bad
# spec is answered with the validator's issues and repairs, not a pydantic error text.
render_ui: BaseTool = StructuredTool.from_function(
    coroutine=_render_ui, name=RENDER_UI_TOOL, description=RENDER_UI_DESCRIPTION,
    args_schema=RenderUiArgs.model_json_schema())
