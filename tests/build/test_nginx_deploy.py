"""docs/deploy.md's nginx server block, run: the built site under its sub-path over HTTPS, precompressed.

nginx serves the real dist/ with the page's block (tests/nginx_site.py) and the answers are checked: the
types the site needs (a .wasm as application/wasm, a .mjs as JavaScript, index.html as HTML), the .br/.gz
siblings sent with Content-Encoding, and the headers the block adds. Skipped without Debian's nginx and
its brotli module; tests/e2e/test_nginx_boot.py boots the app from it in Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import httpx
import pytest
from nginx_site import NGINX_READY, nginx_site

from sitewalk_build.assemble import ensure_built
from sitewalk_build.paths import DIST

pytestmark = pytest.mark.skipif(not NGINX_READY, reason="nginx with the brotli_static module is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    with nginx_site(ensure_built(DIST), tmp_path_factory.mktemp("nginx")) as url:
        yield url


class Answer(NamedTuple):
    status: int
    headers: httpx.Headers
    body: bytes  # as sent: not decoded, so it can be compared with the sibling on disk


def get(url: str, encoding: str | None = None) -> Answer:
    with httpx.Client(verify=False, timeout=30) as client:
        with client.stream("GET", url, headers={"Accept-Encoding": encoding or "identity"}) as response:
            return Answer(response.status_code, response.headers, b"".join(response.iter_raw()))


def test_the_site_is_served_under_its_sub_path_with_the_headers_of_the_block(site):
    page = get(site)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert b'http-equiv="Content-Security-Policy"' in page.body
    assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("path, kind", [("pyodide/pyodide.asm.wasm", "application/wasm"),
                                        ("pyodide/pyodide.mjs", "javascript"), ("boot.js", "javascript"),
                                        ("app.css", "text/css")])
def test_each_file_has_the_type_the_browser_needs(site, path, kind):
    answer = get(site + path)
    assert answer.status == 200 and kind in answer.headers["content-type"], answer.headers["content-type"]


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_the_precompressed_sibling_is_sent_as_it_is(site, encoding):
    path = "pyodide/pyodide.asm.wasm"
    answer = get(site + path, f"{encoding}, deflate" if encoding == "gzip" else "gzip, br")
    suffix = ".br" if encoding == "br" else ".gz"
    assert answer.headers.get("content-encoding") == encoding
    assert answer.headers["content-type"] == "application/wasm"
    assert answer.body == (DIST / (path + suffix)).read_bytes()
    plain = get(site + path)
    assert "content-encoding" not in plain.headers and plain.body == (DIST / path).read_bytes()
