"""The headless-tool wire values, written by the agent and read by the browser from these definitions.

The shapes are the official JS SDK's (`@langchain/langgraph-sdk`, docs in DESIGN.md), so a graph
Sitewalk serves can be driven by that SDK unchanged:

- the interrupt value `{"type": "tool", "tool_call": {"id", "name", "args"}}`, to which Sitewalk adds
  `"contract": {"protocol", "digest"}` (the handshake; the SDK ignores it) and, only when the server
  traces (issue 27), `"traceparent"`: the W3C trace context of the tool call's span, which the browser's
  spans of this call nest under (`trace_wire.parse_traceparent` reads it), and `"checkpoint_id"`: the
  checkpoint the interrupted step started from, which the browser's spans of this call carry;
- the resume value, inside the graph `{tool_call_id: answer}` (the SDK sends
  `{interrupt_id: {tool_call_id: answer}}` on the command; the server unwraps the interrupt id);
- the answer: Sitewalk's typed envelope (`SuccessEnvelope` / `FailureEnvelope`, the dumps of the
  pydantic models in `envelope.py`) or the SDK's `{"error": "<message>"}`.

They are TypedDicts: plain dicts on the wire and in memory, so this module costs nothing when the browser
boots (no pydantic). `parse_headless_interrupt` is the one reader of an interrupt value, used by the
browser's registry and delivery, the timeline and the app. Hand-written because the SDK that defines the
shape is JavaScript: there is no Python library for it.

What counts as a headless interrupt is the SDK's own rule: `type == "tool"` and a `tool_call` (or
`toolCall`) object whose `name` is a string. Anything else is None (not a headless tool call: another
part answers it, e.g. a question). The fields the SDK does not check are read leniently, as the readers
always did, so that every odd value still ends in a typed envelope rather than an exception: a missing
or empty id reads as "", the arguments are kept as sent for the tool's contract to judge (anything but
an object is then `invalid_args`), and a `contract` block that is not an object is absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from sitewalk_shared.contracts.trace_wire import format_traceparent, parse_traceparent

__all__ = [
    "ContractStamp",
    "Envelope",
    "ErrorBody",
    "FailureEnvelope",
    "HeadlessInterrupt",
    "HeadlessRequest",
    "HeadlessResume",
    "SdkError",
    "SuccessEnvelope",
    "ToolAnswer",
    "ToolCall",
    "answer_in",
    "headless_interrupt",
    "parse_headless_interrupt",
    "read_tool_call",
    "resume_for",
]


class ToolCall(TypedDict):
    """A tool call as the interrupt carries it (LangChain's tool call, without its `type`)."""

    id: str
    name: str
    args: dict[str, object]


class ContractStamp(TypedDict):
    """The tool's contract as the agent knows it: the browser compares it with its own (the handshake)."""

    protocol: str
    digest: str


class HeadlessInterrupt(TypedDict):
    """The interrupt value of a headless tool call."""

    type: Literal["tool"]
    tool_call: ToolCall
    contract: NotRequired[ContractStamp]
    traceparent: NotRequired[str]  # W3C trace context of the tool call's span; only when the server traces
    checkpoint_id: NotRequired[str]  # the checkpoint the interrupted step started from; only when it traces


class ErrorBody(TypedDict):
    code: str
    message: str
    detail: dict[str, object]


class SuccessEnvelope(TypedDict):
    ok: Literal[True]
    protocol: int
    tool: str
    tool_call_id: str
    result: dict[str, object]


class FailureEnvelope(TypedDict):
    ok: Literal[False]
    protocol: int
    tool: str
    tool_call_id: str
    error: ErrorBody


class SdkError(TypedDict):
    """What the official SDK sends for a tool that threw or that it does not have."""

    error: str


Envelope = SuccessEnvelope | FailureEnvelope
ToolAnswer = Envelope | SdkError
HeadlessResume = dict[str, ToolAnswer]  # {tool_call_id: answer}, as `interrupt()` returns it in the graph


@dataclass(frozen=True)
class HeadlessRequest:
    """One headless tool call as the browser reads it from an interrupt value (see the module docstring)."""

    tool_call_id: str
    name: str
    args: object  # as sent: the tool's contract judges it
    contract: ContractStamp | None = None
    traceparent: str | None = None  # a valid W3C traceparent, or None (absent, or not a valid one)
    checkpoint_id: str | None = None  # the step's checkpoint (a non-empty string), or None

    def tool_call(self) -> dict[str, object]:
        """The call as a plain dict, e.g. for the code that shows it."""
        return {"id": self.tool_call_id, "name": self.name, "args": self.args}


def headless_interrupt(tool_call_id: str, name: str, args: dict[str, object],
                       contract: ContractStamp | None = None, traceparent: str | None = None,
                       checkpoint_id: str | None = None) -> HeadlessInterrupt:
    """The interrupt value the agent sends for one headless tool call."""
    value: HeadlessInterrupt = {"type": "tool", "tool_call": {"id": tool_call_id, "name": name, "args": args}}
    if contract is not None:
        value["contract"] = contract
    if traceparent is not None:
        value["traceparent"] = traceparent
    if checkpoint_id:
        value["checkpoint_id"] = checkpoint_id
    return value


def parse_headless_interrupt(value: object) -> HeadlessRequest | None:
    """The headless tool call an interrupt value carries, or None when it is not one (the SDK's rule)."""
    if not isinstance(value, dict) or value.get("type") != "tool":
        return None
    request = read_tool_call(value.get("tool_call") or value.get("toolCall"))
    if request is None:
        return None
    parent = parse_traceparent(value.get("traceparent"))
    traceparent = format_traceparent(parent.trace_id, parent.span_id, parent.sampled) if parent else None
    stamp = value.get("contract")
    contract = None
    if isinstance(stamp, dict):
        contract = ContractStamp(protocol=str(stamp.get("protocol") or ""), digest=str(stamp.get("digest") or ""))
    checkpoint_id = value.get("checkpoint_id")
    return HeadlessRequest(request.tool_call_id, request.name, request.args, contract, traceparent,
                           checkpoint_id if isinstance(checkpoint_id, str) and checkpoint_id else None)


def read_tool_call(call: object) -> HeadlessRequest | None:
    """A tool call object (`{"id", "name", "args"}`) read as a request, or None when its name is not a string."""
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    return HeadlessRequest(str(call.get("id") or ""), call["name"], call.get("args") or {})


def resume_for(envelope: Envelope) -> HeadlessResume:
    """The resume value that answers one call with its envelope (keyed by its tool_call_id, as the SDK does)."""
    return {envelope["tool_call_id"]: envelope}


def answer_in(resume: object, tool_call_id: str) -> object:
    """The answer to one call in a resume value: `resume[tool_call_id]` (the SDK's shape), else the bare value."""
    if isinstance(resume, dict) and tool_call_id in resume:
        return resume[tool_call_id]
    return resume
