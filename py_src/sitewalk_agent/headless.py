"""Headless tools as ordinary LangChain tools: the server owns the contract, the browser runs the body.

`headless_tool(contract)` is a `StructuredTool` whose body checks the call and then interrupts
with the shape of the official SDK and the source article (built by
`sitewalk_shared.contracts.headless_wire`, whose definitions the browser reads it with):

    {"type": "tool", "tool_call": {"id", "name", "args"}, "contract": {"protocol", "digest"}}

The resume value is `{tool_call_id: value}` (the SDK's shape; a bare value is accepted too), where
`value` is Sitewalk's typed envelope or the SDK's `{"error": "..."}`. Before asking, the body checks
the arguments against the contract (`invalid_args`) and the client's contract digest from the
handshake (`client_tools` in state: `contract_mismatch`), and looks the call up in the outcome
ledger (a replay reuses the recorded answer). The answer is checked against the result model.
Every outcome is a `ToolMessage` whose content is the typed envelope, so the model always gets
JSON it can read, never a stack trace.

With tracing on (`sitewalk_agent.tracing`), the interrupt value also carries `"traceparent"`: the W3C trace
context of the tool call's span, which the browser's spans of this call nest under, and `"checkpoint_id"`:
the checkpoint the interrupted step started from, which the browser's spans of the call carry.

Tool calls of one AI message run in parallel (LangChain's `ToolNode`), so two headless calls are
pending at once and one resume command answers both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command, interrupt
from pydantic import ValidationError

from sitewalk_agent import tracing
from sitewalk_agent.ids import new_id
from sitewalk_agent.ledger import OutcomeLedger
from sitewalk_shared.contracts.envelope import ErrorCode, ToolError, ToolFailure, ToolSuccess, parse_result
from sitewalk_shared.contracts.headless_wire import ContractStamp, answer_in, headless_interrupt
from sitewalk_shared.contracts.tools import BROWSER_TOOL_CONTRACTS, PROTOCOL_VERSION, ToolContract

__all__ = ["failure", "headless_tool", "headless_tools", "run_headless_call", "tool_message"]

TraceContext = tuple[str, str | None]  # (traceparent, checkpoint id of the step) put into the interrupt value

MAX_MESSAGE = 2000
MAX_DETAIL = 4000  # characters of a failure's detail, as JSON, kept from the browser's answer


def tool_message(call: Mapping[str, object], content: Mapping[str, object], ok: bool,
                 answered_by: str = "server") -> ToolMessage:
    """The tool's result for the model. `artifact.answered_by`: server | browser | ledger (a replay)."""
    return ToolMessage(
        content=json.dumps(content, ensure_ascii=False, separators=(",", ":")),
        tool_call_id=call["id"],
        name=call["name"],
        status="success" if ok else "error",
        artifact={"answered_by": answered_by},
        id=new_id("msg"),
    )


def failure(call: dict[str, Any], code: ErrorCode, message: str, **detail: object) -> ToolFailure:
    return ToolFailure(tool=call["name"], tool_call_id=call["id"],
                       error=ToolError(code=code, message=message[:MAX_MESSAGE], detail=detail))


def _refused(call: Mapping[str, object], outcome: ToolFailure) -> ToolMessage:
    return tool_message(call, outcome.model_dump(mode="json"), False)


def _precheck(contract: ToolContract, call: dict[str, Any], state: dict[str, Any]) -> ToolMessage | dict[str, Any]:
    """The call's checked arguments, or the refusal that ends it before the browser is asked."""
    try:
        args = contract.args.model_validate(call.get("args") or {}).model_dump(mode="json")
    except ValidationError as exc:
        return _refused(call, failure(call, ErrorCode.invalid_args, f"invalid arguments: {exc.errors()[0]['msg']}"))
    client_digest = (state.get("client_tools") or {}).get(contract.name)
    if client_digest and client_digest != contract.digest:
        return _refused(call, failure(call, ErrorCode.contract_mismatch,
                                      f"the client implements another version of {contract.name}",
                                      server_digest=contract.digest, client_digest=client_digest))
    return args


def _checked_answer(contract: ToolContract, call: dict[str, Any], resume: object) -> ToolSuccess | ToolFailure:
    """The browser's (or the SDK's) answer as a typed envelope, its result checked by the contract."""
    tool_call_id = call["id"]
    value = answer_in(resume, tool_call_id)  # the SDK's {tool_call_id: value}, or a bare value
    outcome = parse_result(value, tool=contract.name, tool_call_id=tool_call_id)
    if outcome.tool_call_id != tool_call_id:
        return failure(call, ErrorCode.serialization_failed, f"the answer is for tool call {outcome.tool_call_id!r}")
    if not outcome.ok:
        return _bounded(call, outcome)
    try:
        result = contract.result.model_validate(outcome.result)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "result"
        return failure(call, ErrorCode.serialization_failed, f"invalid result: {where}: {first['msg']}")
    return outcome.model_copy(update={"result": result.model_dump(mode="json")})


def _bounded(call: dict[str, Any], outcome: ToolFailure) -> ToolFailure:
    """The browser's failure in the call's own name, its detail dropped when too large to store."""
    detail = outcome.error.detail
    size = len(json.dumps(detail, ensure_ascii=False, default=str))
    if size > MAX_DETAIL:
        detail = {"detail_dropped": True, "detail_chars": size}
    error = ToolError(code=outcome.error.code, message=outcome.error.message, detail=detail)
    return ToolFailure(tool=call["name"], tool_call_id=call["id"], error=error)


async def run_headless_call(contract: ToolContract, call: dict[str, Any], state: dict[str, Any],
                            ledger: OutcomeLedger | None = None, trace: TraceContext | None = None) -> ToolMessage:
    """Check the call, ask the browser once per call id (a replay answers from the ledger), check the answer.
    `trace`: the tool call's span and its step's checkpoint, sent with the question when the server traces."""
    ledger = ledger or OutcomeLedger()
    checked = _precheck(contract, call, state)
    if isinstance(checked, ToolMessage):
        return checked
    recorded = await ledger.get(call["id"])
    if recorded is not None:  # a replay: the browser already answered this call
        envelope = recorded["envelope"]
        return tool_message(call, envelope, bool(envelope.get("ok")), answered_by="ledger")
    traceparent, checkpoint_id = trace or (None, None)
    resume = interrupt(headless_interrupt(call["id"], contract.name, checked,
                                          ContractStamp(protocol=PROTOCOL_VERSION, digest=contract.digest),
                                          traceparent, checkpoint_id))
    outcome = _checked_answer(contract, call, resume)
    envelope = outcome.model_dump(mode="json")
    await ledger.put(call["id"], envelope)
    return tool_message(call, envelope, outcome.ok, answered_by="browser")


def headless_tool(contract: ToolContract) -> BaseTool:
    """A LangChain tool for `contract` whose body runs in the browser (see the module docstring)."""

    async def body(runtime: ToolRuntime, **args: object) -> ToolMessage | Command:
        call = {"id": str(runtime.tool_call_id), "name": contract.name, "args": args}
        thread_id = (runtime.config.get("configurable") or {}).get("thread_id")
        state = runtime.state if isinstance(runtime.state, dict) else {}
        message = await run_headless_call(contract, call, state, OutcomeLedger(runtime.store, thread_id),
                                          _trace_context(call, runtime.config))
        inspection_id = args.get("inspection_id")
        if isinstance(inspection_id, str) and not _is_invalid_args(message):
            # the conversation is about this inspection from now on (the action keys name it)
            return Command(update={"messages": [message], "inspection_id": inspection_id})
        return message

    # The JSON schema (not the pydantic model) is what the model sees: LangChain then passes the raw
    # arguments through, and the contract check above answers bad ones with a typed invalid_args.
    return StructuredTool.from_function(coroutine=body, name=contract.name, description=contract.description,
                                        args_schema=contract.args.model_json_schema())


def _trace_context(call: dict[str, Any], config: Any) -> TraceContext | None:
    """The tool call span's traceparent and the checkpoint its step started from, when the server traces
    (nothing of OpenTelemetry is imported when off)."""
    if not tracing.enabled():
        return None
    from sitewalk_agent.tracing.interrupts import step_checkpoint, tool_call_traceparent  # noqa: PLC0415

    traceparent = tool_call_traceparent(call, config)
    return (traceparent, step_checkpoint(config)) if traceparent else None


def _is_invalid_args(message: ToolMessage) -> bool:
    return message.status == "error" and '"code":"invalid_args"' in str(message.content)


def headless_tools(contracts: list[ToolContract] | None = None) -> list[BaseTool]:
    """One headless tool per contract (default: every contract Sitewalk's browser implements)."""
    return [headless_tool(contract) for contract in (contracts or list(BROWSER_TOOL_CONTRACTS.values()))]
