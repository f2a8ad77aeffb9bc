"""Client for the LangGraph Agent Server, shared by the browser (Pyodide) and CPython tests."""

from ._compat import default_transport
from .client import AgentServerClient, StreamPart, pending_interrupts
from .errors import (
    AgentServerError,
    Conflict,
    HTTPStatusError,
    NotFound,
    ServerError,
    ServerUnreachable,
    StreamError,
    UnprocessableEntity,
    error_for_status,
)
from .sse import ServerSentEvent, SSEDecoder
from .transport import HttpxTransport, Transport

__all__ = [
    "AgentServerClient",
    "AgentServerError",
    "Conflict",
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
    "UnprocessableEntity",
    "default_transport",
    "error_for_status",
    "pending_interrupts",
]
