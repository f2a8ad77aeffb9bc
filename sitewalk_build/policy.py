"""What the site may reach: the Content-Security-Policy written into index.html, and the scan that
refuses a dist/ referring to a foreign origin (an offline site must not fetch from a CDN)."""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

from sitewalk_build.errors import BuildError
from sitewalk_build.paths import DEFAULT_SERVER_URL, STAMP

# Text files in dist/ that are scanned for foreign origins.
TEXT_SUFFIXES = {".html", ".js", ".mjs", ".css", ".json", ".txt", ".webmanifest", ".svg"}

# Origins that the Pyodide core mentions but never uses when indexURL and the
# lock are on the site: (file, regex matching the whole URL literal, count).
# The CDN default in pyodide.mjs is a template literal used only when no
# packageBaseUrl/indexURL is given; pyodide.asm.mjs builds a URL for a host
# name given at run time (node's http fallback). Matched by shape, not host.
CORE_ALLOWED_URLS = [
    ("pyodide/pyodide.mjs", r"https://[a-z0-9.-]+/pyodide/v\$\{\w+\}/full/", 1),
    ("pyodide/pyodide.asm.mjs", r"https://\$\{\w+\}", 1),
]

URL_RE = re.compile(r"https?://[^\s\"'`<>()\\;]*")  # ';' ends a CSP source
PROTOCOL_RELATIVE_RE = re.compile(r"""(?:src|href|action)\s*=\s*["']?//""", re.I)
XMLNS_RE = re.compile(r"""\bxmlns(?::\w+)?\s*=\s*["'][^"']*["']""")
LOOPBACK_SOURCE_RE = re.compile(r"^https?://(127\.0\.0\.1|localhost|\[::1\]):\*$")
CSP_META_RE = re.compile(r'http-equiv="Content-Security-Policy"\s+content="([^"]*)"')

# The one Trusted Types policy the page may create: the app's HTML policy (py_src/sitewalk/bridge/dom.py,
# named in sitewalk/base/trusted.py; a unit test keeps the two names equal).
TRUSTED_TYPES_POLICY = "sitewalk"


def origin(url: str) -> str:
    """``scheme://host[:port]`` of an absolute http(s) URL; anything else is a BuildError."""
    p = urllib.parse.urlsplit(url)
    if p.scheme not in ("http", "https") or not p.netloc:
        raise BuildError(f"agent server URL must be absolute http(s): {url!r}")
    return f"{p.scheme}://{p.netloc}"


def is_loopback(origin: str) -> bool:
    host = urllib.parse.urlsplit(origin).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def connect_sources(server_url: str) -> list[str]:
    """connect-src: the site and the configured agent server's origin, nothing else.

    The agent server is build configuration (`--server`, written to config.json). A development
    build (its server on loopback) also allows loopback on any port, because `serve` and the tests
    pick free ports; a deployed build allows exactly its server. The list is written into
    config.json too: a `?server=` outside it would be refused by the browser, and the app says so
    (sitewalk/site_policy.py) rather than report the server unreachable; to use another server,
    build with `--server` naming it. No https-wildcard: a page that may talk to
    any https origin can leak an inspection to any of them.
    """
    server = origin(server_url)
    loopback = ["http://127.0.0.1:*", "http://localhost:*"] if is_loopback(server) else []
    return ["'self'", server, *loopback]


def csp(server_url: str) -> str:
    """The Content-Security-Policy written into index.html.

    No inline script or style, no eval ('wasm-unsafe-eval' only, which
    WebAssembly needs), everything else from the site itself. connect-src is
    the one place that reaches beyond the site: see connect_sources.
    Trusted Types are enforced (Chromium): a DOM sink that parses HTML or loads
    script refuses a plain string, and only the app's own policy, which passes
    nothing but its template output, may make the typed value. A CSP in a meta
    tag may carry these directives (unlike frame-ancestors or sandbox).
    """
    connect = connect_sources(server_url)
    return "; ".join([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src " + " ".join(connect),
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "require-trusted-types-for 'script'",
        f"trusted-types {TRUSTED_TYPES_POLICY}",
    ])


def _allowed_in_core(rel: str, urls: list[str], problems: list[str]) -> list[str]:
    """The URLs of a core file minus the known ones, which must all be there."""
    for name, rx, n in CORE_ALLOWED_URLS:
        if name == rel:
            pattern = re.compile(rx)
            matching = [u for u in urls if pattern.fullmatch(u)]
            if len(matching) != n:
                problems.append(f"{rel}: expected {n} known core URL(s), found {len(matching)}")
            return [u for u in urls if not pattern.fullmatch(u)]
    return urls


def _foreign_urls(rel: str, text: str, server_url: str, problems: list[str]) -> list[str]:
    """The URLs of one file that nothing allows."""
    urls = URL_RE.findall(text)
    if rel == "config.json":
        config = json.loads(text)
        if config.get("agentServerUrl") == server_url:
            ok = {server_url} | (set(connect_sources(server_url)) & set(config.get("connectSrc") or ()))
            return [u for u in urls if u not in ok]
        return urls
    if rel == "index.html":
        csp_meta = CSP_META_RE.search(text)
        csp_urls = URL_RE.findall(csp_meta.group(1)) if csp_meta else []
        server = origin(server_url)
        ok = {u for u in csp_urls if LOOPBACK_SOURCE_RE.match(u) or u == server}
        return [u for u in urls if u not in ok]
    return _allowed_in_core(rel, urls, problems)


def scan_dist(dist: Path, server_url: str = DEFAULT_SERVER_URL) -> list[str]:
    """List references to http(s) origins in dist's text files that are not
    explicitly allowed. Empty list = clean."""
    problems: list[str] = []
    origin(server_url)
    for path in sorted(dist.rglob("*")):
        if path.is_dir() or path.suffix not in TEXT_SUFFIXES or path.name == STAMP:
            continue
        rel = path.relative_to(dist).as_posix()
        text = path.read_text(errors="replace")
        if path.suffix in (".svg", ".html"):
            text = XMLNS_RE.sub("", text)  # namespace names are not fetched
        urls = _foreign_urls(rel, text, server_url, problems)
        if path.suffix in (".html", ".css", ".svg") and PROTOCOL_RELATIVE_RE.search(text):
            problems.append(f"{rel}: protocol-relative URL")
        problems.extend(f"{rel}: {u}" for u in urls)
    return problems
