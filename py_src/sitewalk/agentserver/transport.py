"""The seam between the client's logic and the network.

A transport sends one request and returns `(status, parsed_json)`, or streams a response body as
decoded text chunks. `HttpxTransport` is for CPython (the client's default); the browser app hands
the client `sitewalk.bridge.fetch.BrowserTransport` (the browser's `fetch`). This package never
imports the bridge: the app, which knows it runs in the browser, is the one place that picks.
"""

from __future__ import annotations

import json as _json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..base.response_body import parse_body
from ..base.server_errors import ServerUnreachable, error_for_status

if TYPE_CHECKING:  # imported where it is used: the browser never loads httpx
    import httpx

__all__ = ["HttpxTransport", "Transport"]


@runtime_checkable
class Transport(Protocol):
    async def request(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, object]:
        """Send one request; return the status and the parsed JSON body (None when empty).

        Raises ServerUnreachable when no HTTP answer arrives. Does not raise on HTTP statuses.
        """
        ...

    def stream(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> AsyncIterator[str]:
        """Stream the response body as decoded text chunks, cut anywhere.

        Raises ServerUnreachable when the connection fails, and the HTTPStatusError of the
        status (with the parsed body) when the server answers >= 400.
        """
        ...

    async def aclose(self) -> None: ...


class HttpxTransport:
    """CPython transport over one `httpx.AsyncClient` (created on first use, in the running loop)."""

    def __init__(self, *, timeout: float = 30.0, connect_timeout: float = 5.0,
                 client: httpx.AsyncClient | None = None) -> None:
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._client = client

    def _http(self):
        if self._client is None:
            import httpx

            # Streams have no read timeout: a run may think for long; heartbeats keep it alive.
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self._timeout, connect=self._connect_timeout)
            )
        return self._client

    @staticmethod
    def _headers(json: object, headers: dict[str, str] | None) -> dict[str, str]:
        out = {"Accept": "application/json"}
        if json is not None:
            out["Content-Type"] = "application/json"
        out.update(headers or {})
        return out

    async def request(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, object]:
        import httpx

        content = None if json is None else _json.dumps(json)
        try:
            response = await self._http().request(method, url, content=content, headers=self._headers(json, headers))
        except httpx.TransportError as exc:
            raise ServerUnreachable(url, f"{type(exc).__name__}: {exc}") from exc
        return response.status_code, parse_body(response.text)

    async def stream(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> AsyncIterator[str]:
        import httpx

        content = None if json is None else _json.dumps(json)
        hdrs = self._headers(json, headers)
        hdrs["Accept"] = "text/event-stream"
        timeout = httpx.Timeout(self._timeout, connect=self._connect_timeout, read=None)
        try:
            async with self._http().stream(method, url, content=content, headers=hdrs, timeout=timeout) as response:
                if response.status_code >= 400:
                    body = parse_body((await response.aread()).decode("utf-8", "replace"))
                    raise error_for_status(response.status_code, body, method=method, url=url)
                async for text in response.aiter_text():
                    if text:
                        yield text
        except httpx.TransportError as exc:
            raise ServerUnreachable(url, f"{type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

