"""Shared by the agent server and the browser: one set of models, so they cannot drift."""

from .envelope import ErrorCode, ToolError, ToolFailure, ToolSuccess, error_result, ok_result, parse_result
from .tools import PROTOCOL_VERSION, TOOL_CONTRACTS, ReadLocalDraftArgs, ReadLocalDraftResult, ToolContract

__all__ = [
    "PROTOCOL_VERSION",
    "TOOL_CONTRACTS",
    "ErrorCode",
    "ReadLocalDraftArgs",
    "ReadLocalDraftResult",
    "ToolContract",
    "ToolError",
    "ToolFailure",
    "ToolSuccess",
    "error_result",
    "ok_result",
    "parse_result",
]
