"""The agent-server client's errors: one tree, HTTP statuses mapped in one place."""

from __future__ import annotations

from sitewalk_shared.errors import SitewalkError

__all__ = [
    "AgentServerError",
    "Conflict",
    "Forbidden",
    "HTTPStatusError",
    "NotFound",
    "ServerError",
    "ServerUnreachable",
    "StreamError",
    "Unauthorized",
    "UnprocessableEntity",
    "error_for_status",
]


class AgentServerError(SitewalkError):
    """Base of every error the client raises."""


class ServerUnreachable(AgentServerError, ConnectionError):
    """The connection failed (refused, reset, DNS, offline): no HTTP answer at all."""

    def __init__(self, url: str, reason: str = "") -> None:
        self.url = url
        self.reason = reason
        super().__init__(f"agent server unreachable at {url}" + (f": {reason}" if reason else ""))


class HTTPStatusError(AgentServerError):
    """The server answered with a status >= 400."""

    def __init__(self, status: int, body: object = None, *, method: str = "", url: str = "") -> None:
        self.status = status
        self.body = body
        self.method = method
        self.url = url
        # langgraph dev says {"detail"}, Aegra {"error", "message"}
        detail = (body.get("detail") or body.get("message")) if isinstance(body, dict) else body
        where = f" {method} {url}".rstrip() if (method or url) else ""
        super().__init__(f"HTTP {status}{where}" + (f": {detail}" if detail not in (None, "") else ""))


class Unauthorized(HTTPStatusError):
    """401: the server has sign-in and the request carried no token it accepts (missing, wrong, expired)."""


class Forbidden(HTTPStatusError):
    """403: signed in, but this is not allowed (e.g. another inspector's store namespace)."""


class NotFound(HTTPStatusError):
    """404: no such thread, run, assistant or checkpoint."""


class Conflict(HTTPStatusError):
    """409: e.g. a run is already active on the thread (multitask strategy reject)."""


class UnprocessableEntity(HTTPStatusError):
    """422: the request body did not validate."""


class ServerError(HTTPStatusError):
    """5xx."""


class StreamError(AgentServerError):
    """The run stream reported `event: error` (the run failed on the server)."""

    def __init__(self, data: object) -> None:
        self.data = data
        if isinstance(data, dict):
            self.error: str | None = data.get("error")
            self.message: str | None = data.get("message")
        else:
            self.error, self.message = None, None if data is None else str(data)
        text = ": ".join(str(p) for p in (self.error, self.message) if p) or str(data)
        super().__init__(f"run failed: {text}")


_BY_STATUS: dict[int, type[HTTPStatusError]] = {401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
                                                 422: UnprocessableEntity}


def error_for_status(status: int, body: object = None, *, method: str = "", url: str = "") -> HTTPStatusError:
    """The one place an HTTP status becomes an exception class."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else HTTPStatusError)
    return cls(status, body, method=method, url=url)
