"""The Agent Server client's transport in the browser: JS `fetch`, the body's stream reader and a
streaming `TextDecoder` (`pyfetch` cannot stream, hence plain `fetch`).

The app (`sitewalk.app`) makes one and hands it to the `AgentServerClient`; `HttpxTransport` is its
CPython twin. The errors and the body reader it shares with that twin live below both, in `sitewalk.base`.

Pyodide hangs when Python awaits a promise rejected with a non-Error value; `fetch` rejects
with a `TypeError` on network failure, which surfaces as a JsException and becomes
`ServerUnreachable` here.
"""

from __future__ import annotations

import json as _json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import js
from pyodide.ffi import JsException, to_js

from ..base.response_body import parse_body
from ..base.server_errors import ServerUnreachable, error_for_status

if TYPE_CHECKING:  # at run time this module imports only `sitewalk.base` (the seam the app hands down)
    from .values import JsProxy

__all__ = ["BrowserTransport"]


class BrowserTransport:
    def __init__(self) -> None:
        self._controllers: list[JsProxy] = []  # JsProxy is unhashable: no set

    @staticmethod
    def _init(method: str, json: object, headers: dict[str, str] | None, accept: str, signal: object = None) -> object:
        hdrs = {"Accept": accept}
        init: dict[str, object] = {"method": method}
        if json is not None:
            hdrs["Content-Type"] = "application/json"
            init["body"] = _json.dumps(json)
        hdrs.update(headers or {})
        init["headers"] = hdrs
        if signal is not None:
            init["signal"] = signal
        return to_js(init, dict_converter=js.Object.fromEntries)

    @staticmethod
    async def _fetch(url: str, init: object) -> JsProxy:
        try:
            return await js.fetch(url, init)
        except JsException as exc:  # TypeError: Failed to fetch
            raise ServerUnreachable(url, str(exc)) from exc

    async def request(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, object]:
        response = await self._fetch(url, self._init(method, json, headers, "application/json"))
        try:
            text = await response.text()
        except JsException as exc:
            raise ServerUnreachable(url, str(exc)) from exc
        return int(response.status), parse_body(str(text))

    async def stream(
        self, method: str, url: str, json: object = None, headers: dict[str, str] | None = None
    ) -> AsyncIterator[str]:
        controller = js.AbortController.new()
        self._controllers.append(controller)
        try:
            response = await self._fetch(url, self._init(method, json, headers, "text/event-stream", controller.signal))
            if int(response.status) >= 400:
                body = parse_body(str(await response.text()))
                raise error_for_status(int(response.status), body, method=method, url=url)
            reader = response.body.getReader()
            decoder = js.TextDecoder.new("utf-8")
            stream_opts = to_js({"stream": True}, dict_converter=js.Object.fromEntries)
            done = False
            try:
                while True:
                    try:
                        chunk = await reader.read()
                    except JsException as exc:
                        raise ServerUnreachable(url, str(exc)) from exc
                    if chunk.done:
                        done = True
                        break
                    text = str(decoder.decode(chunk.value, stream_opts))
                    if text:
                        yield text
                tail = str(decoder.decode())
                if tail:
                    yield tail
            finally:
                if not done:  # the consumer stopped early: stop the download too
                    controller.abort()
        finally:
            if controller in self._controllers:
                self._controllers.remove(controller)

    async def aclose(self) -> None:
        for controller in list(self._controllers):
            controller.abort()
        self._controllers.clear()
