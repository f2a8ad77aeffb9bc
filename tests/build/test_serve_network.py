"""`serve --network`: the local CA and its leaf kept between runs, the origins the CSP and CORS name,
HTTPS from the static server and the agent server's relay, and the refusal of an open server off loopback."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import ssl
import stat
import sys
import threading
from pathlib import Path

import pytest
from cryptography import x509

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from sitewalk_build import cli  # noqa: E402
from sitewalk_build.network import NETWORK_DISTS, NetworkPlan, network_dist, open_server_refusal, server_tls  # noqa: E402
from sitewalk_build.policy import csp  # noqa: E402
from sitewalk_build.server_config import restricted_config  # noqa: E402
from sitewalk_build.static_server import serve_static  # noqa: E402
from sitewalk_build.tls_certs import PUBLIC_CA, ensure_certificates  # noqa: E402
from sitewalk_build.tls_proxy import start_tls_proxy  # noqa: E402


def _sans(path: Path) -> list[str]:
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    return [str(n.value) for n in cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value]


def _client(files) -> ssl.SSLContext:
    """A client that trusts the local CA only (and checks the host name against the leaf)."""
    return ssl.create_default_context(cafile=str(files.ca_cert))


# --- certificates ------------------------------------------------------------------------------------


def test_the_ca_and_the_leaf_are_made_once_and_reused(tmp_path):
    first = ensure_certificates("10.213.0.1", tmp_path)
    kept = {p: p.read_bytes() for p in (first.ca_cert, first.ca_key, first.leaf_cert, first.leaf_key)}
    again = ensure_certificates("10.213.0.1", tmp_path)
    assert {p: p.read_bytes() for p in kept} == kept
    assert again.public.joinpath(PUBLIC_CA).read_bytes() == kept[first.ca_cert]
    assert sorted(p.name for p in again.public.iterdir()) == [PUBLIC_CA]  # no key where the site serves
    assert stat.S_IMODE(first.ca_key.stat().st_mode) == stat.S_IMODE(first.leaf_key.stat().st_mode) == 0o600


def test_another_address_gets_a_new_leaf_from_the_same_ca(tmp_path):
    first = ensure_certificates("10.213.0.1", tmp_path)
    ca, leaf = first.ca_cert.read_bytes(), first.leaf_cert.read_bytes()
    assert _sans(first.leaf_cert) == ["10.213.0.1"]
    second = ensure_certificates("192.168.1.20", tmp_path)
    assert second.ca_cert.read_bytes() == ca and second.leaf_cert.read_bytes() != leaf
    assert _sans(second.leaf_cert) == ["192.168.1.20"]
    x509.load_pem_x509_certificate(second.leaf_cert.read_bytes()).verify_directly_issued_by(
        x509.load_pem_x509_certificate(ca))


def test_a_leaf_of_another_ca_is_made_again(tmp_path):
    first = ensure_certificates("10.213.0.1", tmp_path)
    first.ca_key.unlink()  # the CA is lost: a new one is made, and the old leaf is not its own
    again = ensure_certificates("10.213.0.1", tmp_path)
    x509.load_pem_x509_certificate(again.leaf_cert.read_bytes()).verify_directly_issued_by(
        x509.load_pem_x509_certificate(again.ca_cert.read_bytes()))


# --- the origins -------------------------------------------------------------------------------------


def test_the_csp_names_the_relay_and_cors_the_site_and_nothing_else(tmp_path):
    plan = NetworkPlan("10.213.0.1", 8443, 8444)
    assert (plan.site_origin, plan.relay_origin) == ("https://10.213.0.1:8443", "https://10.213.0.1:8444")
    connect = next(d for d in csp(plan.relay_origin).split("; ") if d.startswith("connect-src"))
    assert connect == "connect-src 'self' https://10.213.0.1:8444"  # no loopback, no wildcard
    config = json.loads(restricted_config([plan.site_origin], out=tmp_path / "cors.json").read_text())
    assert config["http"]["cors"]["allow_origins"] == ["https://10.213.0.1:8443"]
    assert NetworkPlan("fd00::5", 1, 2).site_origin == "https://[fd00::5]:1"


def test_each_relay_origin_has_a_build_of_its_own():
    """Two serves on two addresses at once (a test run beside the developer's) built into one folder: the
    later build's config.json named its agent server to the other's phone, which could not reach it."""
    one, other = network_dist("https://10.213.91.1:8444"), network_dist("https://10.213.94.1:8444")
    assert one != other and one.parent == other.parent == NETWORK_DISTS
    assert one.name == "10.213.91.1-8444"
    assert network_dist("https://10.213.91.1:8445") != one
    assert network_dist("https://[fd00::5]:8444").parent == NETWORK_DISTS  # no "/" or ":" in the name


# --- HTTPS, and the NUL byte -------------------------------------------------------------------------


@pytest.fixture
def tls_site(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p>hi</p>")
    files = ensure_certificates("127.0.0.1", tmp_path / "tls")
    with serve_static(tmp_path / "site", 0, mounts={"/ca/": files.public}, tls=server_tls(files)) as server:
        yield server, files


def _https_get(port: int, files, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=_client(files), timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.headers.get("Content-Type", ""), body


def test_the_static_server_serves_https_with_the_leaf_and_the_ca_for_the_phone(tls_site):
    server, files = tls_site
    assert server.url.startswith("https://127.0.0.1:")
    assert _https_get(server.port, files, "/index.html")[::2] == (200, b"<p>hi</p>")
    status, kind, body = _https_get(server.port, files, "/ca/" + PUBLIC_CA)
    assert (status, kind, body) == (200, "application/x-x509-ca-cert", files.ca_cert.read_bytes())
    assert _https_get(server.port, files, "/ca/ca.key")[0] == 404


def test_a_nul_byte_in_a_path_is_400_and_the_server_goes_on(tls_site):
    server, files = tls_site
    assert _https_get(server.port, files, "/index.html%00.txt")[0] == 400
    assert _https_get(server.port, files, "/ca/x%00.crt")[0] == 400
    assert _https_get(server.port, files, "/index.html")[0] == 200


def test_a_client_that_does_not_trust_the_ca_is_refused_and_the_server_goes_on(tls_site):
    server, files = tls_site
    with pytest.raises(ssl.SSLCertVerificationError):
        http.client.HTTPSConnection("127.0.0.1", server.port, context=ssl.create_default_context(),
                                    timeout=10).request("GET", "/")
    assert _https_get(server.port, files, "/index.html")[0] == 200


def test_the_relay_passes_each_chunk_of_a_stream_as_it_comes(tmp_path):
    """An SSE-like answer: the second event is sent only after the client has read the first."""
    files = ensure_certificates("127.0.0.1", tmp_path)
    upstream = socket.create_server(("127.0.0.1", 0))
    read_first = threading.Event()

    def serve_one() -> None:
        conn, _ = upstream.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: one\n\n")
        read_first.wait(10)
        conn.sendall(b"data: two\n\n")
        conn.close()

    threading.Thread(target=serve_one, daemon=True).start()
    proxy = start_tls_proxy("127.0.0.1", 0, upstream.getsockname()[1], server_tls(files))
    try:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as raw, \
                _client(files).wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            got = b""
            while b"data: one\n\n" not in got:
                got += tls.recv(65536)
            assert b"two" not in got
            read_first.set()
            while chunk := tls.recv(65536):
                got += chunk
        assert got.endswith(b"data: one\n\ndata: two\n\n")
    finally:
        proxy.stop()
        upstream.close()


# --- refusing an open server -------------------------------------------------------------------------


def test_open_server_refusal_off_loopback_only():
    assert open_server_refusal("127.0.0.1", None, False) is None
    assert open_server_refusal("10.213.0.1", "/srv/tokens.json", False) is None
    assert open_server_refusal("10.213.0.1", None, True) is None
    refusal = open_server_refusal("10.213.0.1", "  ", False)
    assert refusal is not None and "SITEWALK_TOKENS" in refusal and "--open-server" in refusal


@pytest.fixture
def signal_handlers():
    """cmd_serve installs its SIGTERM/SIGHUP handlers: put pytest's back afterwards."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in kept.items():
        signal.signal(sig, handler)


def test_serve_network_without_tokens_or_the_open_flag_exits_with_one_line(tmp_path, monkeypatch, capsys,
                                                                           signal_handlers):
    monkeypatch.delenv("SITEWALK_TOKENS", raising=False)
    code = cli.main(["serve", "--network", "10.213.0.9", "--tls-dir", str(tmp_path / "tls"),
                     "--state-dir", str(tmp_path / "state")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "refusing to serve an agent server without sign-in on 10.213.0.9" in err
    assert not (tmp_path / "tls").exists() and not (tmp_path / "state").exists()  # nothing made, nothing started


def test_serve_network_without_an_address_takes_the_primary_one(tmp_path, monkeypatch, capsys, signal_handlers):
    from sitewalk_build import serve

    monkeypatch.delenv("SITEWALK_TOKENS", raising=False)
    monkeypatch.setattr(serve, "primary_address", lambda: "10.213.0.7")
    assert cli.main(["serve", "--network", "--tls-dir", str(tmp_path / "tls")]) == 2
    assert "without sign-in on 10.213.0.7:" in capsys.readouterr().err


def test_the_primary_address_is_an_ip_address_and_no_traffic_is_needed_to_find_it():
    import ipaddress

    from sitewalk_build.network import NetworkServeError, primary_address

    try:
        ipaddress.ip_address(primary_address())  # a UDP socket's connect() sends nothing
    except NetworkServeError as exc:  # a machine without a default route: said plainly
        assert "pass one, e.g. --network" in str(exc)
