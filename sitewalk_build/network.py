"""``serve --network``: what it takes to open the site from a phone on the same network.

Off loopback a page is a secure context only over HTTPS, and geolocation, the service worker and the
file picker need one; so on the network address the site is served over TLS (static_server's ``tls``)
and the agent server behind a TLS relay (tls_proxy.py), both with a leaf of a local CA (tls_certs.py).
The site is built for the relay's origin (its CSP's connect-src names it, policy.py) into a dist of its
own, and the agent server's CORS allows the site's origin only (server_config.py).

An agent server reachable from a network must know who calls it: without sign-in tokens
(SITEWALK_TOKENS) it refuses to start unless ``--open-server`` says the server is meant to be open.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import urlsplit

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.paths import CACHE
from sitewalk_build.ports import free_port, port_free

if TYPE_CHECKING:  # tls_certs needs `cryptography`: build.py's `build` runs without site-packages
    from sitewalk_build.tls_certs import TlsFiles

NETWORK_DISTS = CACHE / "dist-network"  # a build per relay origin (network_dist); dist/ stays the loopback build
SITE_PORT, AGENT_PORT = 8443, 8444  # the same ports each run keep the build (and the phone's bookmark)
CA_PATH = "ca/"  # where the static server serves the CA's certificate, under the site's base

__all__ = ["AGENT_PORT", "CA_PATH", "NETWORK_DISTS", "SITE_PORT", "NetworkPlan", "NetworkServeError", "chosen_port",
           "is_loopback_address", "network_dist", "open_server_refusal", "primary_address", "print_banner",
           "server_tls", "trust_line"]


def network_dist(relay_origin: str) -> Path:
    """Where the site built for this relay origin lives. One folder per origin: two serves on two addresses
    at once (two worktrees, a test run beside the developer's own) never serve each other's build, whose
    config.json and CSP would name the other's agent server."""
    return NETWORK_DISTS / re.sub(r"[^A-Za-z0-9.]+", "-", urlsplit(relay_origin).netloc).strip("-")


class NetworkServeError(AgentServerStartError):
    """``serve --network`` cannot start: no address, or an open server nobody asked for."""


@dataclass(frozen=True)
class NetworkPlan:
    """Where the site and the agent server's relay listen, and so the origins each names."""

    address: str
    site_port: int
    relay_port: int

    def _origin(self, port: int) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"https://{host}:{port}"

    @property
    def site_origin(self) -> str:
        """The one origin the agent server's CORS allows."""
        return self._origin(self.site_port)

    @property
    def relay_origin(self) -> str:
        """The agent server as the site reaches it: the build's --server, so its CSP's connect-src."""
        return self._origin(self.relay_port)


def primary_address() -> str:
    """The address this machine reaches other networks from (that of its default route).

    A UDP socket's connect() only picks the route and the source address; it sends nothing."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any non-local address picks the default route
        except OSError as exc:
            raise NetworkServeError(f"no network address found ({exc.strerror}): "
                                    "pass one, e.g. --network 192.168.1.20") from None
        address: str = probe.getsockname()[0]
    return address


def is_loopback_address(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


def open_server_refusal(address: str, tokens: str | None, open_server: bool) -> str | None:
    """Why serving on ``address`` must not start (one line), or None: off loopback the agent server
    needs sign-in tokens, unless the operator said it is open."""
    if is_loopback_address(address) or (tokens or "").strip() or open_server:
        return None
    return (f"refusing to serve an agent server without sign-in on {address}: set SITEWALK_TOKENS to a "
            "token file (docs/operating.md, Sign-in) or pass --open-server to let anyone on the network in")


def chosen_port(asked: int | None, preferred: int, host: str) -> int:
    """The port asked for; else ``preferred`` when free on ``host``; else a free one (known before the
    build, whose CSP names the agent server's port, and before the agent server, whose CORS names the site's)."""
    if asked is not None:
        return asked
    return preferred if port_free(preferred, host) else free_port(host)


def server_tls(files: TlsFiles) -> ssl.SSLContext:
    """A server-side TLS context with the leaf (TLS 1.2 at least, the default ciphers)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(files.leaf_cert, files.leaf_key)
    return context


def trust_line(ca_url: str) -> str:
    """How to trust the CA on a phone, in one line."""
    return (f"Trust the CA once on the phone: open {ca_url} (accept the warning this once); "
            "Android: Settings > Security > Encryption & credentials > Install a certificate > CA certificate; "
            "iOS: Settings > General > VPN & Device Management > install the profile, then "
            "General > About > Certificate Trust Settings > turn on Sitewalk local CA")


def print_banner(site_url: str, out: TextIO = sys.stdout) -> None:
    """The site's URL, then its QR code in the terminal (what a phone's camera opens)."""
    import segno  # here: build.py's `build` runs without site-packages (tests/build/test_cli_limits.py)

    print(site_url, file=out, flush=True)
    segno.make(site_url, error="m").terminal(out=out, compact=True)
    out.flush()
