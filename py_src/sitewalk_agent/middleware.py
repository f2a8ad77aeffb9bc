"""Sitewalk's parts of a `create_agent` agent, as LangChain middleware.

- `HeadlessToolsMiddleware`: registers the headless tools, keeps the contract handshake
  (`client_tools`: tool name -> contract digest, sent by the client that drives the thread; each
  headless call is checked against it), and answers what no tool can (an unknown tool name, tool
  calls whose arguments are not JSON) with typed envelopes instead of plain error text.
- `GenerativeUiMiddleware`: registers `render_ui`; after each model turn applies the screen the
  reply writes inline (JSON-patch lines in its text) to the screen on record (`ui_spec`); a refused
  inline screen goes back to the model with its repairs.
- `UiActionsMiddleware`: when the agent's turn ends on a screen that asks for a decision (a
  ConfirmButton), it waits for a press (interrupt `{"type": "ui_action_request", ...}`), authorizes
  it against the state, performs it once (a replayed idempotency key gets the recorded outcome, a
  refusal is recorded), says what was done, and waits for the next press.

The hooks and the tools are async (the Agent Server runs graphs with `ainvoke`/`astream`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse, hook_config
from langchain.agents.middleware.types import ExtendedModelResponse, PrivateStateAttr
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.config import get_config
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from sitewalk_agent.actions import ActionLedger, action_request, answer_press, expected_actions, unwrap_press
from sitewalk_agent.audit.record import record_ui_action
from sitewalk_agent.headless import failure, headless_tools, tool_message
from sitewalk_agent.ids import new_id
from sitewalk_agent.inline_ui import inline_ui_update
from sitewalk_agent.screens import latest, render_ui
from sitewalk_shared.contracts.audit import STATE_HEAD, committed_head, later_head
from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import ToolContract

__all__ = ["GenerativeUiMiddleware", "HeadlessToolsMiddleware", "SitewalkState", "UiActionsMiddleware"]


class HeadlessState(AgentState):
    client_tools: NotRequired[dict[str, str] | None]
    """Tool name -> contract digest, as the client that drives this thread implements them."""
    inspection_id: NotRequired[Annotated[str | None, latest]]
    """The inspection the conversation is about, once the agent asked for its draft."""


class UiState(AgentState):
    ui_spec: NotRequired[Annotated[dict[str, Any] | None, latest]]
    """The screen on record: {root, elements, identity: {message_id, tool_call_id, revision}}."""
    ui_issues: NotRequired[list[dict[str, Any]] | None]
    """Why the last inline screen was refused; [] once one is taken."""


class ActionState(UiState):
    inspection_id: NotRequired[Annotated[str | None, latest]]
    ui_actions: NotRequired[list[dict[str, Any]] | None]
    """Actions the agent authorized and performed: {action, element_id, identity, idempotency_key, result}."""
    ui_action_result: NotRequired[dict[str, Any] | None]
    """The answer to the last press: {status: done | replayed | refused, ...}."""
    ui_action_reply: NotRequired[Annotated[str | None, PrivateStateAttr]]
    """What the agent says about the last press, said by the model node in place of the model."""
    audit_head: NotRequired[Annotated[dict[str, Any] | None, later_head]]
    """The audit chain's head {seq, hash} as of this checkpoint (see `sitewalk_agent.audit.middleware`)."""


class SitewalkState(HeadlessState, ActionState):
    """Every state key Sitewalk's browser reads, for an agent's `state_schema`."""


def _last_ai(state: dict[str, Any]) -> AIMessage | None:
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    return last if isinstance(last, AIMessage) else None


class HeadlessToolsMiddleware(AgentMiddleware[HeadlessState]):
    state_schema = HeadlessState

    def __init__(self, contracts: list[ToolContract] | None = None) -> None:
        super().__init__()
        self.tools = headless_tools(contracts)

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]
                              ) -> ToolMessage | Command:
        if request.tool is None:  # the model named a tool nobody has: a typed answer, not an error text
            call = {"id": request.tool_call["id"], "name": request.tool_call["name"]}
            outcome = failure(call, ErrorCode.not_implemented, f"no tool named {call['name']!r}")
            return tool_message(call, outcome.model_dump(mode="json"), False)
        return await handler(request)

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: HeadlessState, runtime: Runtime) -> dict[str, Any] | None:
        """Tool calls whose arguments are not JSON get a typed invalid_args answer (LangChain drops them)."""
        values: dict[str, Any] = dict(state)
        last = _last_ai(values)
        if last is None or not last.invalid_tool_calls:
            return None
        answered = {m.tool_call_id for m in values["messages"] if isinstance(m, ToolMessage)}
        replies = []
        for bad in last.invalid_tool_calls:
            call = {"id": bad.get("id") or new_id("call"), "name": bad.get("name") or "unknown"}
            if call["id"] in answered:
                continue
            error = f"arguments are not valid JSON: {bad.get('error') or ''}".strip()
            outcome = failure(call, ErrorCode.invalid_args, error)
            replies.append(tool_message(call, outcome.model_dump(mode="json"), False))
        if not replies:
            return None
        return {"messages": replies, **({} if last.tool_calls else {"jump_to": "model"})}


class GenerativeUiMiddleware(AgentMiddleware[UiState]):
    state_schema = UiState

    def __init__(self) -> None:
        super().__init__()
        self.tools = [render_ui]

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: UiState, runtime: Runtime) -> dict[str, Any] | None:
        values: dict[str, Any] = dict(state)
        last = _last_ai(values)
        on_record = values.get("ui_spec")
        if last is None or ((on_record or {}).get("identity") or {}).get("message_id") == last.id:
            return None  # no reply, or its screen is on record already
        update = inline_ui_update(last, on_record, values["messages"][:-1])
        if "messages" not in update:
            return update or None
        if last.tool_calls:  # tool results must follow the reply: record the refusal, tell the model later
            return {k: v for k, v in update.items() if k != "messages"}
        return {**update, "jump_to": "model"}  # the model may send the screen again, fixed


class UiActionsMiddleware(AgentMiddleware[ActionState]):
    state_schema = ActionState

    @hook_config(can_jump_to=["model"])
    async def aafter_agent(self, state: ActionState, runtime: Runtime) -> dict[str, Any] | None:
        values: dict[str, Any] = dict(state)
        if not expected_actions(values.get("ui_spec")):
            return None  # nothing to decide: the run ends
        press = unwrap_press(interrupt(action_request(values.get("ui_spec"))))
        thread_id = (get_config().get("configurable") or {}).get("thread_id")
        update, said = await answer_press(values, press, ActionLedger(runtime.store, thread_id))
        record = await record_ui_action(runtime.store, get_config(), values, press, update["ui_action_result"])
        if record is not None:  # committed with this step, like a tool call's (AuditMiddleware)
            update = {**update, STATE_HEAD: committed_head(record)}
        # Back through the model node, which says `said` (or nothing) instead of asking the model,
        # and then here again: the screen keeps asking until the thread moves on.
        return {**update, "ui_action_reply": said, "jump_to": "model"}

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
                               ) -> ModelResponse | ExtendedModelResponse:
        said = request.state.get("ui_action_reply")
        if not isinstance(said, str):
            return await handler(request)
        result: list[BaseMessage] = [AIMessage(content=said, id=new_id("msg"))] if said else []
        return ExtendedModelResponse(model_response=ModelResponse(result=result),
                                     command=Command(update={"ui_action_reply": None}))
