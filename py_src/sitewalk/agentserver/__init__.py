"""Client for the LangGraph Agent Server, shared by the browser (Pyodide) and CPython tests."""

from ..base.server_errors import (
    AgentServerError,
    Conflict,
    Forbidden,
    HTTPStatusError,
    NotFound,
    ServerError,
    ServerUnreachable,
    StreamError,
    Unauthorized,
    UnprocessableEntity,
    error_for_status,
)
from .client import AgentServerClient, StreamPart, pending_interrupts
from .sse import ServerSentEvent, SSEDecoder
from .transport import HttpxTransport, Transport

__all__ = [
    "AgentServerClient",
    "AgentServerError",
    "Conflict",
    "Forbidden",
    "HTTPStatusError",
    "HttpxTransport",
    "NotFound",
    "SSEDecoder",
    "ServerError",
    "ServerSentEvent",
    "ServerUnreachable",
    "StreamError",
    "StreamPart",
    "Transport",
    "Unauthorized",
    "UnprocessableEntity",
    "error_for_status",
    "pending_interrupts",
]
