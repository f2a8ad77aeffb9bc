"""The static server answers from the build's precompressed siblings, as nginx's gzip_static/brotli_static do."""

from __future__ import annotations

import gzip
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import build  # noqa: E402
from sitewalk_build.static_server import accepted_encodings  # noqa: E402

BODY = b"console.log('sitewalk');\n" * 200


@pytest.fixture
def site(tmp_path):
    (tmp_path / "app.js").write_bytes(BODY)
    (tmp_path / "app.js.br").write_bytes(b"BR-BYTES")  # what the server sends is the sibling, byte for byte
    (tmp_path / "app.js.gz").write_bytes(gzip.compress(BODY, mtime=0))
    (tmp_path / "plain.txt").write_bytes(b"no siblings")
    return tmp_path


def _get(url: str, **headers: str):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), b""


@pytest.mark.parametrize("accept, coding, body", [
    ("gzip, deflate, br, zstd", "br", b"BR-BYTES"),  # Chromium's header: br first
    ("gzip", "gzip", gzip.compress(BODY, mtime=0)),
    ("br;q=0, gzip;q=0.5", "gzip", gzip.compress(BODY, mtime=0)),  # br refused
    ("", None, BODY),
    ("identity", None, BODY),
])
def test_negotiates_br_then_gzip_then_identity(site, accept, coding, body):
    with build.serve_static(site, 0) as server:
        status, headers, got = _get(server.url + "app.js", **{"Accept-Encoding": accept})
    assert status == 200 and got == body
    assert headers.get("Content-Encoding") == coding
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"].startswith("text/javascript") and int(headers["Content-Length"]) == len(body)


def test_a_file_without_siblings_is_served_as_is_and_does_not_vary(site):
    with build.serve_static(site, 0) as server:
        status, headers, got = _get(server.url + "plain.txt", **{"Accept-Encoding": "br, gzip"})
    assert status == 200 and got == b"no siblings" and "Content-Encoding" not in headers and "Vary" not in headers


def test_a_host_without_encodings_ignores_the_siblings(site):
    with build.serve_static(site, 0, precompressed=False) as server:
        status, headers, got = _get(server.url + "app.js", **{"Accept-Encoding": "br, gzip"})
    assert status == 200 and got == BODY and "Content-Encoding" not in headers


def test_revalidation_answers_304_for_every_form(site):
    with build.serve_static(site, 0) as server:
        _, headers, _ = _get(server.url + "app.js", **{"Accept-Encoding": "br"})
        status, again, body = _get(server.url + "app.js", **{"Accept-Encoding": "br",
                                                              "If-Modified-Since": headers["Last-Modified"]})
    assert status == 304 and body == b"" and again["Vary"] == "Accept-Encoding"


def test_mounts_serve_another_folder_and_stay_inside_it(site, tmp_path_factory):
    other = tmp_path_factory.mktemp("bench")
    (other / "bare.html").write_text("bare")
    with build.serve_static(site, 0, mounts={"bench": other}) as server:
        assert _get(server.url + "bench/bare.html")[2] == b"bare"
        assert _get(server.url + "bench/../app.js")[0] == 404 or _get(server.url + "bench/%2e%2e/app.js")[0] == 404


def test_accept_encoding_parsing():
    assert accepted_encodings("gzip, deflate, br, zstd") == {"gzip", "deflate", "br", "zstd"}
    assert accepted_encodings("br;q=0, GZIP;q=0.8") == {"gzip"}
    assert accepted_encodings("br;q=nonsense") == set()
    assert accepted_encodings(None) == set()
