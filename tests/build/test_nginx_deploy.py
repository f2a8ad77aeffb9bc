"""docs/deploy.md's nginx server block, run: the built site under its sub-path over HTTPS, precompressed.

The page's block is taken as it is written; only what names this machine is replaced (the port, the
certificate, a throwaway one made here, and the folder of dist/). nginx then serves the real dist/ and
the answers are checked: the types the site needs (a .wasm as application/wasm, a .mjs as JavaScript,
index.html as HTML), the .br/.gz siblings sent with Content-Encoding, and the headers the block adds.
Needs Debian's nginx with the brotli module (`apt-get install nginx libnginx-mod-http-brotli-static`);
skipped without it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import httpx
import pytest

from sitewalk_build.assemble import ensure_built
from sitewalk_build.paths import DIST

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
BROTLI_MODULE = Path("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

pytestmark = pytest.mark.skipif(NGINX is None or not BROTLI_MODULE.exists(),
                                reason="nginx with the brotli_static module is not installed")


def server_block() -> str:
    [block] = re.findall(r"^```nginx\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    return block


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key


def nginx_conf(block: str, port: int, cert: Path, key: Path, dist: Path, home: Path) -> str:
    """The page's block in a minimal nginx.conf; the replaced parts must each be there to replace."""
    here = {"listen 443 ssl;": f"listen 127.0.0.1:{port} ssl;",
            "/etc/ssl/example.org/fullchain.pem": str(cert), "/etc/ssl/example.org/privkey.pem": str(key),
            "/srv/sitewalk/dist/": f"{dist}/"}
    for old, new in here.items():
        assert old in block, f"the page's nginx block no longer has {old!r}"
        block = block.replace(old, new)
    temp = " ".join(f"{kind}_temp_path {home}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;" if os.geteuid() == 0 else ""  # the workers read the files of whoever runs the test
    return (f"load_module {BROTLI_MODULE};\n{user}\nworker_processes 1;\npid {home}/nginx.pid;\n"
            f"error_log {home}/error.log;\nevents {{}}\n"
            f"http {{\n include /etc/nginx/mime.types;\n default_type application/octet-stream;\n"
            f" access_log off;\n {temp}\n{block}\n}}\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    dist = ensure_built(DIST)
    home = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    conf = home / "nginx.conf"
    conf.write_text(nginx_conf(server_block(), port, *_certificate(home), dist, home))
    assert NGINX is not None
    checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(home)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(home), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"https://127.0.0.1:{port}/sitewalk/"
    try:
        _wait(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _wait(url: str, proc: subprocess.Popen) -> None:
    for _ in range(100):
        if proc.poll() is not None:
            raise AssertionError(f"nginx exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            httpx.get(url, verify=False, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("nginx did not answer")


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
