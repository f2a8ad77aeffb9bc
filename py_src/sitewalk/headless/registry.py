"""Match a headless-tool interrupt to the browser's implementation and produce its answer.

The agent's tool interrupts with {"type": "tool", "tool_call": {"id", "name", "args"}} (the official
SDK's shape, read by `sitewalk_shared.contracts.headless_wire`). `HeadlessToolRegistry.answer` turns
one such interrupt into the resume value `{tool_call_id: envelope}`. Every path ends in an envelope,
never an exception or a hang: unknown tool → not_implemented, bad args → invalid_args, a result that
does not fit its model or is not plain JSON under the size limit → serialization_failed, a tool that overruns → timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from sitewalk_shared.contracts.envelope import ErrorCode, error_result, ok_result
from sitewalk_shared.contracts.headless_wire import (
    Envelope,
    HeadlessRequest,
    HeadlessResume,
    parse_headless_interrupt,
    read_tool_call,
    resume_for,
)
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS, ToolContract, on_device, outbound
from sitewalk_shared.errors import SitewalkError

from .permissions import DevicePermissions

ToolImplementation = Callable[[BaseModel], Awaitable[Any]]

MAX_RESULT_BYTES = 64 * 1024
DEFAULT_TIMEOUT_S = 20.0


class ToolFailed(SitewalkError):
    """Raised by an implementation to end its call with a typed error."""

    def __init__(self, code: ErrorCode | str, message: str, **detail: object):
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.detail = detail


class HeadlessToolRegistry:
    def __init__(self, contracts: dict[str, ToolContract] = TOOL_CONTRACTS, timeout_s: float = DEFAULT_TIMEOUT_S):
        self._contracts = contracts
        self._impls: dict[str, ToolImplementation] = {}
        self._timeouts: dict[str, float] = {}
        self.timeout_s = timeout_s
        self.permissions: DevicePermissions | None = None  # what this device has denied (the browser sets it)

    def register(self, name: str, implementation: ToolImplementation, timeout_s: float | None = None) -> None:
        """Register an implementation; `timeout_s` overrides the registry's default for this tool
        (e.g. a tool that waits for the inspector's answer needs longer)."""
        if name not in self._contracts:
            raise KeyError(f"no contract for tool {name!r}")
        self._impls[name] = implementation
        if timeout_s is not None:
            self._timeouts[name] = timeout_s
        else:
            self._timeouts.pop(name, None)

    def timeout_for(self, name: str) -> float:
        return self._timeouts.get(name, self.timeout_s)

    @property
    def names(self) -> list[str]:
        return sorted(self._impls)

    @property
    def contracts(self) -> dict[str, ToolContract]:
        """The contracts this client was built with (what the handshake compares)."""
        return dict(self._contracts)

    def manifest(self) -> dict[str, str]:
        """Registered tools and their contract digests, for the handshake with the agent."""
        return {name: self._contracts[name].digest for name in self.names}

    async def run(self, tool_call: HeadlessRequest | dict[str, Any]) -> Envelope:
        """Run one tool call (a request, or a `{"id", "name", "args"}` dict); return its envelope."""
        if isinstance(tool_call, HeadlessRequest):
            request = tool_call
        else:  # a dict without a string name is no tool of this client's: not_implemented below
            request = read_tool_call(tool_call) or HeadlessRequest(str(tool_call.get("id") or ""),
                                                                   tool_call.get("name", ""), None)
        name, call_id = request.name, request.tool_call_id
        impl = self._impls.get(name)
        if impl is None:
            return error_result(name, call_id, ErrorCode.not_implemented, f"this client does not implement {name!r}",
                                implemented=self.names)
        contract = self._contracts[name]
        try:
            args = contract.args.model_validate(request.args)
        except ValidationError as exc:
            return error_result(name, call_id, ErrorCode.invalid_args, "arguments do not match the contract",
                                issues=_issues(exc))
        timeout_s = self.timeout_for(name)
        try:
            raw = await asyncio.wait_for(impl(args), timeout_s)
        except ToolFailed as exc:
            return error_result(name, call_id, exc.code, exc.message, **exc.detail)
        except TimeoutError:
            return error_result(name, call_id, ErrorCode.timeout, f"{name} did not finish in {timeout_s:g} s")
        except Exception as exc:  # an implementation bug still gets an answer to the agent
            return error_result(name, call_id, ErrorCode.internal, f"{type(exc).__name__}: {exc}"[:500])
        return _checked_result(contract, call_id, raw)

    async def answer(self, interrupt_value: object) -> HeadlessResume | None:
        """The resume value for a headless-tool interrupt ({tool_call_id: envelope}), or None if not one."""
        request = parse_headless_interrupt(interrupt_value)
        if request is None:
            return None
        envelope = await self.run(request)
        return resume_for(envelope)


def _checked_result(contract: ToolContract, call_id: str, raw: object) -> Envelope:
    name = contract.name
    try:
        # on_device: a plain dump would leave out local-only fields before outbound() summarises them
        result = contract.result.model_validate(on_device(raw) if isinstance(raw, BaseModel) else raw)
    except ValidationError as exc:
        return error_result(name, call_id, ErrorCode.serialization_failed, "result does not match the contract",
                            issues=_issues(exc))
    payload = outbound(result)  # local-only fields stay on the device
    size = len(json.dumps(payload, separators=(",", ":")).encode())
    if size > MAX_RESULT_BYTES:
        return error_result(name, call_id, ErrorCode.serialization_failed,
                            f"result is {size} bytes, over the {MAX_RESULT_BYTES} byte limit", size=size)
    return ok_result(name, call_id, payload)


def _issues(exc: ValidationError) -> list[dict[str, str]]:
    return [{"loc": ".".join(map(str, e["loc"])), "msg": e["msg"]} for e in exc.errors()[:20]]
