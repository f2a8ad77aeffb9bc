"""HTTPS in front of the agent server: TLS on the network address, the server itself stays on loopback.

Why a relay and not the server's own TLS: `langgraph dev` has no TLS options, and Aegra's uvicorn has
(``--ssl-keyfile``) but would then have to listen on the network itself; one relay serves both servers
alike, and the agent server, which has no business being reachable from the network other than through
TLS, keeps listening on 127.0.0.1 only. It relays bytes, not HTTP: every chunk read from one side is
written to the other as it comes, so a server-sent event stream reaches the phone unbuffered, and
nothing of a request (headers, Origin, Authorization) is parsed or changed (CORS and sign-in are the
server's). Hand-written on asyncio and ssl (stdlib) because it is forty lines; no maintained package
does just this without a second web server.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from dataclasses import dataclass, field

CHUNK = 64 * 1024

__all__ = ["TlsProxy", "start_tls_proxy"]


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy one direction until its end, then close the other side's write half."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


@dataclass
class TlsProxy:
    """A running relay: ``https://host:port`` to ``127.0.0.1:upstream_port``."""

    host: str
    port: int
    upstream_port: int
    _loop: asyncio.AbstractEventLoop = field(repr=False)
    _server: asyncio.Server = field(repr=False)
    _thread: threading.Thread = field(repr=False)
    _open: set[asyncio.StreamWriter] = field(repr=False, default_factory=set)

    @property
    def url(self) -> str:
        return f"https://{self.host}:{self.port}"

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for writer in list(self._open):  # open streams too: the agent server is going away
                writer.close()
            await self._server.wait_closed()

        if self._loop.is_running():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def start_tls_proxy(host: str, port: int, upstream_port: int, context: ssl.SSLContext) -> TlsProxy:
    """Listen with TLS on ``host:port`` (0 = a free port) and relay each connection to the agent server
    on ``127.0.0.1:upstream_port``; runs in a thread of its own until ``stop()``."""
    loop = asyncio.new_event_loop()
    open_writers: set[asyncio.StreamWriter] = set()

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        except OSError:
            client_writer.close()
            return
        open_writers.update((client_writer, upstream_writer))
        try:
            await asyncio.gather(_pump(client_reader, upstream_writer), _pump(upstream_reader, client_writer))
        finally:
            open_writers.difference_update((client_writer, upstream_writer))

    server = loop.run_until_complete(asyncio.start_server(relay, host, port, ssl=context,
                                                          ssl_handshake_timeout=30))
    real_port = int(server.sockets[0].getsockname()[1])
    thread = threading.Thread(target=loop.run_forever, name="sitewalk-tls-proxy", daemon=True)
    thread.start()
    return TlsProxy(host, real_port, upstream_port, loop, server, thread, open_writers)
