"""dist/ over HTTP in a background thread, under any base path, with the MIME types the site needs."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitewalk_build.paths import DIST

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    quiet = True
    protocol_version = "HTTP/1.1"

    def guess_type(self, path: Any) -> str:
        return MIME_TYPES.get(Path(str(path)).suffix.lower()) or super().guess_type(path)

    def end_headers(self) -> None:
        # Revalidate every time (cheap 304s); the service worker does offline.
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _strip_base(self) -> bool:
        """Map a request under the base path onto dist/; the base without its slash redirects, the rest is 404."""
        path, _, query = self.path.partition("?")
        if self.base == "/":
            return True
        if path + "/" == self.base:
            self.send_response(301)
            self.send_header("Location", self.base + ("?" + query if query else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return False
        if not path.startswith(self.base):
            self.send_error(404, "outside the site's base path")
            return False
        self.path = "/" + path[len(self.base):] + ("?" + query if query else "")
        return True

    def do_GET(self) -> None:
        if self._strip_base():
            super().do_GET()

    def do_HEAD(self) -> None:
        if self._strip_base():
            super().do_HEAD()

    def log_message(self, format: str, *args: Any) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    def handle(self) -> None:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()


class _ThreadingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@dataclass
class StaticServer:
    """dist/ served over HTTP in a background thread."""

    httpd: http.server.ThreadingHTTPServer
    thread: threading.Thread
    port: int
    url: str  # ends with the base path, e.g. http://127.0.0.1:8000/ or .../sitewalk/

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_static(dist: Path | str = DIST, port: int = 0, *, host: str = "127.0.0.1",
                 base: str = "/", verbose: bool = False) -> StaticServer:
    """Serve ``dist`` on ``host:port`` (0 = a free port) under ``base``."""
    base = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    handler = functools.partial(type("Handler", (_Handler,), {"base": base, "quiet": not verbose}),
                                directory=str(dist))
    httpd = _ThreadingServer((host, port), handler)
    real_port = int(httpd.server_address[1])
    thread = threading.Thread(target=httpd.serve_forever, name="sitewalk-static", daemon=True)
    thread.start()
    return StaticServer(httpd, thread, real_port, f"http://{host}:{real_port}{base}")


def app_url(static_url: str, server_url: str | None = None) -> str:
    """The URL that opens the app wired to ``server_url``."""
    if not server_url:
        return static_url
    return static_url + "?" + urllib.parse.urlencode({"server": server_url}, safe=":/")
