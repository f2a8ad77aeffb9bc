"""Whether the site's Content-Security-Policy lets the app reach an agent server.

The build writes connect-src into the CSP and, the same list, into config.json
(sitewalk_build/policy.py). A `?server=` outside it would be blocked by the browser, and the
failed fetch would look like a server that is down; the app checks first and says what it is
(`ServerNotAllowed`). The matching follows CSP's host-source rules for the sources the build writes
(`'self'`, `scheme:`, `scheme://host[:port|:*]`, `*.`-wildcard hosts); a path in a source is not
compared (the build writes none). Pure: runs under CPython.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

from sitewalk_shared.errors import SitewalkError

__all__ = ["ServerNotAllowed", "allows", "check_server"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_HOST_SOURCE = re.compile(r"^(?:(?P<scheme>[a-z][a-z0-9+.-]*)://)?(?P<host>\[[^\]]+\]|[^:/]+)"
                          r"(?::(?P<port>\d+|\*))?(?P<path>/.*)?$", re.I)


class ServerNotAllowed(SitewalkError, ValueError):
    """The agent server's origin is not in the site's connect-src: the browser would block every request."""

    def __init__(self, server_origin: str, built_for: str, connect_src: Sequence[str]) -> None:
        self.server_origin = server_origin
        self.built_for = built_for
        self.connect_src = list(connect_src)
        super().__init__(f"This site is not allowed to connect to {server_origin}; it was built for {built_for}")

    @property
    def detail(self) -> str:
        return (f"The site's Content-Security-Policy allows connect-src {' '.join(self.connect_src)} only. "
                "To use another agent server, build the site with --server naming it.")


@dataclass(frozen=True)
class _Url:
    scheme: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> _Url:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        return cls(scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme, 0))

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = _DEFAULT_PORTS.get(self.scheme)
        return f"{self.scheme}://{host}" + ("" if self.port == default else f":{self.port}")


def _scheme_matches(source: str, url: str) -> bool:
    """Equal, or the secure upgrade of the source's scheme (http: allows https:)."""
    return source == url or (source, url) in {("http", "https"), ("ws", "wss")}


def _host_matches(source: str, url: str) -> bool:
    source = source.strip("[]").lower()
    if source == "*":
        return True
    if source.startswith("*."):
        return url.endswith(source[1:])
    return source == url


def _port_matches(source: str | None, url: _Url, source_scheme: str) -> bool:
    if source == "*":
        return True
    if source is None:
        return url.port == _DEFAULT_PORTS.get(url.scheme)
    port = int(source)
    return port == url.port or (port == 80 and url.port == 443 and source_scheme == "http")


def allows(source: str, url: str, site_url: str) -> bool:
    """Whether one connect-src source expression lets the page fetch `url` (the site at `site_url`)."""
    target = _Url.parse(url)
    if source == "'self'":
        return target.origin == _Url.parse(site_url).origin
    if source.startswith("'"):
        return False  # 'none' and the other keywords allow no server
    if re.fullmatch(r"[a-z][a-z0-9+.-]*:", source, re.I):
        return _scheme_matches(source[:-1].lower(), target.scheme)
    match = _HOST_SOURCE.match(source)
    if match is None:
        return False
    scheme = (match["scheme"] or _Url.parse(site_url).scheme).lower()
    return (_scheme_matches(scheme, target.scheme) and _host_matches(match["host"], target.host)
            and _port_matches(match["port"], target, scheme))


def check_server(server_url: str, connect_src: Sequence[str] | None, built_for: str, site_url: str) -> None:
    """Raise ServerNotAllowed when no source of connect-src allows `server_url`; no list, no check."""
    if connect_src is None:
        return
    if not any(allows(source, server_url, site_url) for source in connect_src):
        raise ServerNotAllowed(_Url.parse(server_url).origin, built_for, connect_src)
