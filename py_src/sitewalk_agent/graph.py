"""Sitewalk's inspection graph, served by the LangGraph Agent Server (see langgraph.json).

    START -> agent -> (tool calls?) -> tools -> agent -> ... -> END

`agent` calls the chat model with the tools bound; `tools` runs every tool call of the last AI
message. `read_local_draft` is a headless tool: its body interrupts with the official shape
`{"type": "tool", "tool_call": {"id", "name", "args"}}` and the browser answers it. `render_ui`
validates a generative-UI spec against the shared catalog and keeps it in `ui_spec`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

# The server loads this file by path; make both `sitewalk_agent` and `sitewalk` importable even
# when the project is not pip-installed.
_PY_SRC = str(Path(__file__).resolve().parent.parent)
if _PY_SRC not in sys.path:
    sys.path.insert(0, _PY_SRC)

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from langgraph.store.base import BaseStore  # noqa: E402
from langgraph.types import interrupt  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402  (typing.TypedDict publishes a null schema)

from sitewalk.contracts.catalog import catalog_json_schema  # noqa: E402
from sitewalk.contracts.envelope import ErrorCode, ToolError, ToolFailure, parse_result  # noqa: E402
from sitewalk.contracts.tools import PROTOCOL_VERSION, TOOL_CONTRACTS, ToolContract  # noqa: E402
from sitewalk.spec.model import RENDER_UI_TOOL, RenderUiArgs, record_screen  # noqa: E402
from sitewalk.spec.validate import validate_spec  # noqa: E402
from sitewalk_agent.actions import ActionLedger, authorize, expected_actions, work_order_id  # noqa: E402
from sitewalk_agent.inline_ui import inline_ui_update, is_refusal  # noqa: E402
from sitewalk_agent.ledger import OutcomeLedger  # noqa: E402
from sitewalk_agent.scripted_model import ScriptedInspectionModel, new_id, pace_of, scenario_of  # noqa: E402

__all__ = ["InspectionState", "build_graph", "graph", "make_model", "TOOL_SCHEMAS"]


class InspectionState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation (human, AI with tool calls, tool results)."""
    inspection_id: str | None
    """The inspection the conversation is about, once the agent asked for its draft."""
    ui_spec: dict[str, Any] | None
    """The latest validated screen: {root, elements, identity: {message_id, tool_call_id, revision}}."""
    client_tools: dict[str, str] | None
    """Tool name -> contract digest, as the client that drives this thread implements them."""
    ui_actions: list[dict[str, Any]] | None
    """Actions the agent authorized and performed: {action, element_id, identity, idempotency_key, result}."""
    ui_issues: list[dict[str, Any]] | None
    """Why the last inline screen (patch lines in the agent's text) was refused; [] once one is taken."""
    ui_action_result: dict[str, Any] | None
    """The answer to the last action request: {status: done | replayed | refused, ...}."""


# --- tools -------------------------------------------------------------------------------------

TOOL_SCHEMAS: list[dict[str, Any]] = [
    *(
        {
            "type": "function",
            "function": {
                "name": contract.name,
                "description": contract.description,
                "parameters": contract.args.model_json_schema(),
            },
        }
        for contract in TOOL_CONTRACTS.values()
    ),
    {
        "type": "function",
        "function": {
            "name": RENDER_UI_TOOL,
            "description": (
                "Show a screen to the inspector. The spec may only use catalog components: "
                + ", ".join(sorted(catalog_json_schema()))
                + "."
            ),
            "parameters": RenderUiArgs.model_json_schema(),
        },
    },
]

SYSTEM_PROMPT = (
    "You are Sitewalk, a field-inspection assistant. To see an inspector's draft call "
    "read_local_draft (it runs on their device). save_local_draft, get_current_location and "
    "attach_photo run there too; the inspector may decline (permission_denied), so go on without them. "
    "To show a screen call render_ui with a spec "
    "{root, elements}. To change the screen on record you may instead write RFC 6902 JSON-patch ops "
    "after your reply's text, one op a line, each line starting with '{' "
    "(e.g. {\"op\":\"replace\",\"path\":\"/elements/risk/props/level\",\"value\":\"high\"}). "
    "Screens use only these components:\n"
    + json.dumps(catalog_json_schema(), separators=(",", ":"))
)


def _tool_message(
    call: dict[str, Any], content: dict[str, Any], ok: bool, answered_by: str = "server"
) -> ToolMessage:
    """The tool's result for the model. `artifact.answered_by`: server | browser | ledger (a replay)."""
    return ToolMessage(
        content=json.dumps(content, ensure_ascii=False, separators=(",", ":")),
        tool_call_id=call["id"],
        name=call["name"],
        status="success" if ok else "error",
        artifact={"answered_by": answered_by},
        id=new_id("msg"),
    )


def _failure(call: dict[str, Any], code: ErrorCode, message: str, **detail: Any) -> ToolFailure:
    return ToolFailure(
        tool=call["name"],
        tool_call_id=call["id"],
        error=ToolError(code=code, message=message[:2000], detail=detail),
    )


async def run_headless_tool(
    contract: ToolContract, call: dict[str, Any], state: InspectionState, ledger: OutcomeLedger | None = None
) -> tuple[ToolMessage, dict[str, Any]]:
    """A headless tool: ask the browser (once per call id), then check the answer against the contract."""
    tool_call_id = call["id"]
    ledger = ledger or OutcomeLedger()
    update: dict[str, Any] = {}
    try:
        args = contract.args.model_validate(call.get("args") or {}).model_dump(mode="json")
    except ValidationError as exc:
        outcome = _failure(call, ErrorCode.invalid_args, f"invalid arguments: {exc.errors()[0]['msg']}")
        return _tool_message(call, outcome.model_dump(mode="json"), False), update
    if "inspection_id" in args:
        update["inspection_id"] = args["inspection_id"]

    client_digest = (state.get("client_tools") or {}).get(contract.name)
    if client_digest and client_digest != contract.digest:
        outcome = _failure(
            call,
            ErrorCode.contract_mismatch,
            f"the client implements another version of {contract.name}",
            server_digest=contract.digest,
            client_digest=client_digest,
        )
        return _tool_message(call, outcome.model_dump(mode="json"), False), update

    recorded = await ledger.get(tool_call_id)
    if recorded is not None:  # a replay: the browser already answered this call
        envelope = recorded["envelope"]
        return _tool_message(call, envelope, bool(envelope.get("ok")), answered_by="ledger"), update

    resume = interrupt(
        {
            "type": "tool",
            "tool_call": {"id": tool_call_id, "name": contract.name, "args": args},
            "contract": {"protocol": PROTOCOL_VERSION, "digest": contract.digest},
        }
    )
    # The official SDK resumes with {tool_call_id: value}; accept a bare value too.
    value = resume[tool_call_id] if isinstance(resume, dict) and tool_call_id in resume else resume
    outcome = parse_result(value, tool=contract.name, tool_call_id=tool_call_id)
    if outcome.tool_call_id != tool_call_id:
        outcome = _failure(
            call, ErrorCode.serialization_failed, f"the answer is for tool call {outcome.tool_call_id!r}"
        )
    if outcome.ok:
        try:
            result = contract.result.model_validate(outcome.result)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "result"
            outcome = _failure(call, ErrorCode.serialization_failed, f"invalid result: {where}: {first['msg']}")
        else:
            outcome = outcome.model_copy(update={"result": result.model_dump(mode="json")})
    envelope = outcome.model_dump(mode="json")
    await ledger.put(tool_call_id, envelope)
    return _tool_message(call, envelope, outcome.ok, answered_by="browser"), update


def run_render_ui(
    call: dict[str, Any], state: InspectionState, message_id: str | None
) -> tuple[ToolMessage, dict[str, Any]]:
    issues = [issue.to_dict() for issue in validate_spec(call.get("args"))]
    if issues:
        return _tool_message(call, {"ok": False, "issues": issues}, False), {}
    ui_spec = record_screen(call["args"], state.get("ui_spec"), message_id=message_id, tool_call_id=call["id"])
    return _tool_message(call, {"ok": True, "revision": ui_spec["identity"]["revision"]}, True), {"ui_spec": ui_spec}


# --- model -------------------------------------------------------------------------------------


def make_model():
    """The chat model: the scripted one, or `SITEWALK_MODEL=provider:model` for a real one."""
    name = os.environ.get("SITEWALK_MODEL", "").strip()
    if not name or name == "scripted":
        return ScriptedInspectionModel()
    from langchain.chat_models import init_chat_model

    return init_chat_model(name)


# Built once at import time: constructing a provider model imports packages (file I/O), which
# must not happen on the server's event loop.
_BASE_MODEL = make_model()
_SCRIPTED = isinstance(_BASE_MODEL, ScriptedInspectionModel)
_MODEL = _BASE_MODEL.bind_tools(TOOL_SCHEMAS)


# --- nodes -------------------------------------------------------------------------------------


MAX_FRAGMENT_DELAY_MS = 2000
SLOW_UI_DELAY_MS = 40  # pacing of these scenarios, so a browser sees the screen build up
PACED_SCENARIOS = ("slow-ui", "patch-ui")


async def agent(state: InspectionState, config: RunnableConfig) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if _SCRIPTED:
        # Pacing for demos and for recording slow streams (heartbeats): configurable.fragment_delay_ms.
        delay = (config.get("configurable") or {}).get("fragment_delay_ms")
        if delay is None:
            delay = pace_of(state.get("messages", []))
        if delay is None and scenario_of(state.get("messages", [])) in PACED_SCENARIOS:
            delay = SLOW_UI_DELAY_MS
        if isinstance(delay, (int, float)) and delay > 0:
            kwargs["fragment_delay"] = min(float(delay), MAX_FRAGMENT_DELAY_MS) / 1000.0
    response = await _MODEL.ainvoke([SystemMessage(SYSTEM_PROMPT), *state.get("messages", [])], **kwargs)
    # A screen may also come as JSON-patch lines in the text (json-render's inline mode).
    update = inline_ui_update(response, state.get("ui_spec"), state.get("messages", []))
    return {**update, "messages": [response, *update.get("messages", [])]}


async def tools(state: InspectionState, config: RunnableConfig, *, store: Optional[BaseStore] = None) -> dict[str, Any]:  # noqa: UP045
    ledger = OutcomeLedger(store, (config.get("configurable") or {}).get("thread_id"))
    messages = state.get("messages", [])
    last = messages[-1] if messages else None
    if not isinstance(last, AIMessage):
        return {}
    results: list[ToolMessage] = []
    update: dict[str, Any] = {}
    for call in last.tool_calls:
        if call["name"] in TOOL_CONTRACTS:
            message, extra = await run_headless_tool(TOOL_CONTRACTS[call["name"]], call, state, ledger)
        elif call["name"] == RENDER_UI_TOOL:
            message, extra = run_render_ui(call, {**state, **update}, last.id)
        else:
            outcome = _failure(call, ErrorCode.not_implemented, f"no tool named {call['name']!r}")
            message, extra = _tool_message(call, outcome.model_dump(mode="json"), False), {}
        results.append(message)
        update.update(extra)
    for bad in last.invalid_tool_calls:  # arguments that did not parse as JSON
        call = {"id": bad.get("id") or new_id("call"), "name": bad.get("name") or "unknown"}
        outcome = _failure(call, ErrorCode.invalid_args, f"arguments are not valid JSON: {bad.get('error') or ''}".strip())
        results.append(_tool_message(call, outcome.model_dump(mode="json"), False))
    return {"messages": results, **update}


async def await_action(state: InspectionState, config: RunnableConfig, *,
                       store: Optional[BaseStore] = None) -> dict[str, Any]:  # noqa: UP045
    """Wait for the inspector to press a ConfirmButton of the screen on record; authorize and do it.

    The browser resumes the interrupt with {type: "ui_action", action, identity, element_id,
    idempotency_key}; it never performs the action itself. See `sitewalk_agent.actions`.
    """
    ui_spec = state.get("ui_spec") or {}
    expected = expected_actions(ui_spec)
    resume = interrupt({"type": "ui_action_request", "identity": ui_spec.get("identity"),
                        "actions": [{"element_id": key, **value} for key, value in expected.items()]})
    request = resume
    if isinstance(resume, dict) and resume.get("type") != "ui_action" and len(resume) == 1:
        request = next(iter(resume.values()))  # keyed by interrupt id
    reason = authorize(ui_spec, request)
    base = {k: request.get(k) for k in ("action", "element_id", "idempotency_key")} if isinstance(request, dict) else {}
    if reason:
        return {"ui_action_result": {**base, "status": "refused", "reason": reason}}
    ledger = ActionLedger(store, (config.get("configurable") or {}).get("thread_id"))
    key = request["idempotency_key"]
    recorded = await ledger.get(key)
    if recorded is not None:  # a replay: answer what was done, change nothing
        return {"ui_action_result": {**recorded, "status": "replayed"}}
    button = expected[request["element_id"]]
    reference = (work_order_id(state.get("inspection_id"), button["subject"], request["element_id"])
                 if request["action"] == "create_work_order"
                 else f"{request['action']}:{state.get('inspection_id') or 'unknown'}:{button['subject'] or request['element_id']}")
    record = {**base, "identity": ui_spec.get("identity"), "subject": button["subject"]}
    result = await ledger.perform(request["action"], reference, record)
    record = {**record, "result": result}
    await ledger.put(key, record)
    said = (f"Work order {reference} created." if result.get("created")
            else f"Work order {reference} already exists.") if request["action"] == "create_work_order" \
        else f"Done: {request['action'].replace('_', ' ')} ({reference})."
    return {"ui_actions": [*(state.get("ui_actions") or []), record],
            "ui_action_result": {**record, "status": "done"},
            "messages": [AIMessage(content=said, id=new_id("msg"))]}


def route_after_agent(state: InspectionState) -> str:
    messages = state.get("messages", [])
    last = messages[-1] if messages else None
    if is_refusal(last):
        return "agent"  # the inline screen was refused: the model may send it again, fixed
    if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
        return "tools"
    if expected_actions(state.get("ui_spec")):
        return "await_action"  # the screen asks the inspector for a decision
    return END


def build_graph():
    builder = StateGraph(InspectionState)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_node("await_action", await_action)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route_after_agent,
                                  {"tools": "tools", "await_action": "await_action", "agent": "agent", END: END})
    builder.add_edge("await_action", "await_action")  # keep waiting: the screen stays on
    builder.add_edge("tools", "agent")
    return builder.compile()


graph = build_graph()
