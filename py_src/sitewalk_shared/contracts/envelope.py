"""The JSON envelope a headless tool's outcome travels in, from the browser back to the agent.

Success: {"ok": true, "protocol": 1, "tool": name, "tool_call_id": id, "result": {...}}
Failure: {"ok": false, "protocol": 1, "tool": name, "tool_call_id": id,
          "error": {"code": "not_found", "message": "...", "detail": {...}}}
The official JS SDK sends a bare {"error": "message"} instead; `parse_result` understands both.

A server-side tool whose external call went out and whose answer never came (it timed out) cannot
say succeeded or failed: its envelope is a failure with code `timeout` whose `detail.outcome` is
`outcome_unknown` (`unknown_outcome`, `is_outcome_unknown`), shown and recorded as such until it is
reconciled, never as failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .headless_wire import FailureEnvelope, SuccessEnvelope
from .tool_result import tool_envelope

PROTOCOL = 1
OUTCOME_UNKNOWN = "outcome_unknown"


class ErrorCode(StrEnum):
    """Machine codes the agent can act on; the message is for people."""

    not_found = "not_found"
    permission_denied = "permission_denied"
    timeout = "timeout"
    invalid_args = "invalid_args"
    serialization_failed = "serialization_failed"
    not_implemented = "not_implemented"
    corrupt_data = "corrupt_data"
    unavailable = "unavailable"
    contract_mismatch = "contract_mismatch"
    cancelled = "cancelled"
    internal = "internal"
    one_walk_at_a_time = "one_walk_at_a_time"  # a second walk_site call in one message (the first is walked)


class ToolError(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: ErrorCode
    message: str = Field(max_length=2000)
    detail: dict[str, object] = Field(default_factory=dict)


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid")
    protocol: int = PROTOCOL
    tool: str
    tool_call_id: str


class ToolSuccess(_Envelope):
    ok: Literal[True] = True
    result: dict[str, object]


class ToolFailure(_Envelope):
    ok: Literal[False] = False
    error: ToolError


ToolOutcome = ToolSuccess | ToolFailure
_outcome = TypeAdapter(ToolOutcome)


def ok_result(tool: str, tool_call_id: str, result: Mapping[str, object]) -> SuccessEnvelope:
    dumped = ToolSuccess(tool=tool, tool_call_id=tool_call_id, result=dict(result)).model_dump(mode="json")
    return cast(SuccessEnvelope, dumped)


def error_result(
    tool: str, tool_call_id: str, code: ErrorCode | str, message: str, **detail: object
) -> FailureEnvelope:
    error = ToolError(code=ErrorCode(code), message=message, detail=detail)
    return cast(FailureEnvelope, ToolFailure(tool=tool, tool_call_id=tool_call_id, error=error).model_dump(mode="json"))


def parse_result(value: object, *, tool: str, tool_call_id: str) -> ToolSuccess | ToolFailure:
    """Read what came back for a tool call: Sitewalk's envelope, the SDK's {"error": str}, or a bare value.

    Anything unreadable becomes a `ToolFailure(serialization_failed)` rather than an exception,
    so the agent always has an outcome to reason about.
    """
    if isinstance(value, dict) and "ok" in value and "tool_call_id" in value:
        try:
            return _outcome.validate_python(value)
        except Exception as exc:  # a malformed envelope is data, not a crash
            return ToolFailure(
                tool=tool,
                tool_call_id=tool_call_id,
                error=ToolError(
                    code=ErrorCode.serialization_failed, message=f"malformed envelope: {exc}"[:2000]
                ),
            )
    if isinstance(value, dict) and set(value) == {"error"} and isinstance(value["error"], str):
        return ToolFailure(
            tool=tool,
            tool_call_id=tool_call_id,
            error=ToolError(code=ErrorCode.internal, message=value["error"][:2000]),
        )
    if isinstance(value, dict):
        return ToolSuccess(tool=tool, tool_call_id=tool_call_id, result=value)
    return ToolFailure(
        tool=tool,
        tool_call_id=tool_call_id,
        error=ToolError(
            code=ErrorCode.serialization_failed, message=f"expected a JSON object, got {type(value).__name__}"
        ),
    )


def unknown_outcome(tool: str, tool_call_id: str, message: str, **detail: object) -> FailureEnvelope:
    """The envelope of a call whose request went out and whose answer never came."""
    return error_result(tool, tool_call_id, ErrorCode.timeout, message, **detail, outcome=OUTCOME_UNKNOWN)


def is_outcome_unknown(envelope: object) -> bool:
    """Whether an envelope (a dict, or a tool message's content: JSON text, after any edit notice) says the
    outcome is unknown."""
    if isinstance(envelope, (str, list)):
        envelope = tool_envelope(envelope)
    if not isinstance(envelope, dict) or envelope.get("ok") is not False:
        return False
    error = envelope.get("error")
    detail = error.get("detail") if isinstance(error, dict) else None
    return isinstance(detail, dict) and detail.get("outcome") == OUTCOME_UNKNOWN
