"""docs/deploy.md's nginx server block, run on loopback over a folder (the built dist/), for the tests.

The page's block is taken as it is written; only what names a real host is replaced (the port, the
certificate, a throwaway one made here, and the folder of dist/), each of which must be in the block.
Needs Debian's nginx with the brotli module (`apt-get install nginx libnginx-mod-http-brotli-static`):
`NGINX_READY` says whether this machine has them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from sitewalk_build.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "deploy.md"
BROTLI_MODULE = Path("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
NGINX_READY = NGINX is not None and BROTLI_MODULE.exists()
SUB_PATH = "/sitewalk/"


def server_block() -> str:
    [block] = re.findall(r"^```nginx\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    return block


def _certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key


def nginx_conf(block: str, port: int, cert: Path, key: Path, dist: Path, home: Path) -> str:
    """The page's block in a minimal nginx.conf (the `http` part as Debian's nginx.conf has it)."""
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


@contextmanager
def nginx_site(dist: Path, home: Path) -> Iterator[str]:
    """`https://127.0.0.1:<port>/sitewalk/`, served by nginx with the page's block until the block ends."""
    assert NGINX is not None
    port = free_port()
    conf = home / "nginx.conf"
    conf.write_text(nginx_conf(server_block(), port, *_certificate(home), dist, home))
    checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(home)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(home), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"https://127.0.0.1:{port}{SUB_PATH}"
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
