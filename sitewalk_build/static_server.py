"""dist/ over HTTP in a background thread, under any base path, with the MIME types the site needs.

It serves the build's precompressed siblings as a static host with nginx's ``brotli_static`` and
``gzip_static`` would: a request for ``x`` from a browser that accepts br (then gzip) is answered with
the bytes of ``x.br`` (``x.gz``) and ``Content-Encoding``; ``Vary: Accept-Encoding`` on every file that
has a sibling. Nothing is compressed per request. ``precompressed=False`` serves every file as it is
(a host that knows nothing of encodings).

With an ``ssl.SSLContext`` (``tls=``) it serves HTTPS: the listening socket is wrapped with the
handshake deferred to the first read, so each connection's handshake runs in its own handler thread
and a slow or failed one holds up no other (``serve --network``, sitewalk_build/network.py).
A path with a NUL byte (``/index.html%00.txt``) is answered 400: no file name holds one, and
``open()`` would raise on it.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import http.server
import os
import ssl
import threading
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sitewalk_build.paths import DIST
from sitewalk_build.precompress import ENCODINGS

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
    ".crt": "application/x-x509-ca-cert",  # a CA certificate a phone offers to install (serve --network)
}


def accepted_encodings(header: str | None) -> set[str]:
    """The content codings an Accept-Encoding header accepts (q > 0), lower case."""
    accepted = set()
    for part in (header or "").split(","):
        name, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name and q > 0:
            accepted.add(name.lower())
    return accepted


class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    quiet = True
    precompressed = True
    mounts: dict[str, str] = {}  # URL prefix (after the base, e.g. "/bench/") -> a folder served there
    protocol_version = "HTTP/1.1"

    def translate_path(self, path: str) -> str:
        for prefix, folder in self.mounts.items():
            if path.startswith(prefix):
                rel = urllib.parse.unquote(path[len(prefix):].split("?", 1)[0].split("#", 1)[0])
                return str(Path(folder).joinpath(*(p for p in rel.split("/") if p not in ("", ".", ".."))))
        return super().translate_path(path)

    def _file(self) -> str | None:
        """The file a GET of this path answers with (a folder's index.html), or None (404, redirect)."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return None
            path = os.path.join(path, "index.html")
        return path if os.path.isfile(path) else None

    def _negotiate(self, path: str) -> tuple[str | None, str, bool]:
        """(Content-Encoding or None, the file to send, whether the answer varies with Accept-Encoding)."""
        siblings = [(coding, path + suffix) for coding, suffix in ENCODINGS if os.path.isfile(path + suffix)]
        if not self.precompressed or not siblings:
            return None, path, False
        accepted = accepted_encodings(self.headers.get("Accept-Encoding"))
        for coding, sibling in siblings:
            if coding in accepted:
                return coding, sibling, True
        return None, path, True

    def _not_modified(self, mtime: float) -> bool:
        since = self.headers.get("If-Modified-Since")
        if not since or self.headers.get("If-None-Match"):
            return False
        try:
            return int(mtime) <= email.utils.parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return False

    def send_head(self) -> IO[bytes] | None:  # type: ignore[override]
        path = self._file()
        if path is None:
            return super().send_head()
        coding, sent, varies = self._negotiate(path)
        mtime = os.stat(path).st_mtime  # the file's own date validates every form of it
        if self._not_modified(mtime):
            self.send_response(304)
            if varies:
                self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        fh = open(sent, "rb")
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        if coding:
            self.send_header("Content-Encoding", coding)
        if varies:
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(os.fstat(fh.fileno()).st_size))
        self.send_header("Last-Modified", self.date_time_string(mtime))
        self.end_headers()
        return fh

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

    def _bad_path(self) -> bool:
        """A path whose decoded form holds a NUL byte is answered 400 (no file has one in its name)."""
        if "\x00" not in urllib.parse.unquote(self.path.split("?", 1)[0]):
            return False
        self.send_error(400, "NUL byte in the path")
        return True

    def do_GET(self) -> None:
        if not self._bad_path() and self._strip_base():
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._bad_path() and self._strip_base():
            super().do_HEAD()

    def log_message(self, format: str, *args: Any) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    def handle(self) -> None:
        # ssl.SSLError: a client that gave up on the handshake (e.g. one that does not trust the CA yet)
        with contextlib.suppress(ConnectionResetError, BrokenPipeError, ssl.SSLError):
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
                 base: str = "/", verbose: bool = False, precompressed: bool = True,
                 mounts: dict[str, Path] | None = None, tls: ssl.SSLContext | None = None) -> StaticServer:
    """Serve ``dist`` on ``host:port`` (0 = a free port) under ``base``; ``precompressed=False``
    ignores the .br/.gz siblings; ``mounts`` serves other folders under URL prefixes ("/bench/");
    ``tls`` (a server-side SSLContext) serves HTTPS."""
    base = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    attrs = {"base": base, "quiet": not verbose, "precompressed": precompressed,
             "mounts": {"/" + k.strip("/") + "/": str(v) for k, v in (mounts or {}).items()}}
    handler = functools.partial(type("Handler", (_Handler,), attrs), directory=str(dist))
    httpd = _ThreadingServer((host, port), handler)
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)
    real_port = int(httpd.server_address[1])
    thread = threading.Thread(target=httpd.serve_forever, name="sitewalk-static", daemon=True)
    thread.start()
    scheme = "https" if tls is not None else "http"
    return StaticServer(httpd, thread, real_port, f"{scheme}://{host}:{real_port}{base}")


def app_url(static_url: str, server_url: str | None = None) -> str:
    """The URL that opens the app wired to ``server_url``."""
    if not server_url:
        return static_url
    return static_url + "?" + urllib.parse.urlencode({"server": server_url}, safe=":/")
