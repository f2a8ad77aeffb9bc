"""A phone on the same network, for real: `serve --network` run as the developer runs it, and Chromium in
a network namespace of its own (the "phone"), trusting the local CA through its NSS database
($HOME/.pki/nssdb), not by ignoring certificate errors.

The developer's machine is a namespace too (the "LAN"), joined to the phone's by a veth pair made inside
them: this machine's own network never changes. (It did at first, with the pair's one end here, and every
other Chromium of the suite saw the change and failed its requests with ERR_NETWORK_CHANGED; the fixture
now watches this machine's links and addresses and fails on any change.) The servers listen on the LAN's
address only; no traffic goes to any other address. The agent server is langgraph dev, or Aegra on Postgres
with SITEWALK_SERVER=aegra (`serve --durable`). Needs root (network namespaces) and certutil (Debian's
libnss3-tools, installed by `./sw test`).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from agent_servers import server_kind
from conftest_helpers import CHROMIUM_ARGS, PHONE, BrowserWatch, wait_until_ready
from signin_helpers import ANA, write_token_file

ROOT = Path(__file__).resolve().parents[2]
# Run first (long_wait): `served` starts a whole stack, mostly waiting. The tests then take a browser slot
# like any other: the phone's boot is as CPU-bound as theirs.
pytestmark = [pytest.mark.xdist_group("phone-network"), pytest.mark.long_wait(slot=True)]

# One subnet per test process, so that two runs at once (another worktree) do not meet.
OCTET = os.getpid() % 200 + 20
HOST_IP, PHONE_IP = f"10.213.{OCTET}.1", f"10.213.{OCTET}.2"
NAMESPACE, LAN = f"swphone{os.getpid()}", f"swlan{os.getpid()}"
HOST_IF, PHONE_IF = f"swh{os.getpid()}", f"swp{os.getpid()}"
PIER = {"latitude": 59.3293, "longitude": 18.0686, "accuracy": 12}
DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bollard bolt"], "risk": "high"}


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True)


@contextmanager
def this_machines_network_unchanged() -> Iterator[None]:
    """Fails if a link or an address of this machine's own namespace changes within the block: every other
    Chromium running here would see it and fail its requests (ERR_NETWORK_CHANGED)."""
    monitor = subprocess.Popen(["ip", "-o", "monitor", "link", "address"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(0.2)  # the monitor is listening
        yield
        time.sleep(0.2)  # an event of the block's last step has arrived
    finally:
        monitor.terminate()
        events, _ = monitor.communicate(timeout=10)
    assert not events.strip(), f"this machine's network changed under the other tests:\n{events}"


@pytest.fixture(scope="module")
def phone_network():
    """The phone's namespace and the LAN's, a veth pair between them (HOST_IP on the LAN, PHONE_IP on the
    phone) made inside them; removed afterwards. Yields the LAN's namespace, where the servers run."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("a network namespace needs root and iproute2")
    with this_machines_network_unchanged():
        _run("ip", "netns", "add", NAMESPACE)
        _run("ip", "netns", "add", LAN)
        try:
            _run("ip", "-n", LAN, "link", "add", HOST_IF, "type", "veth", "peer", "name", PHONE_IF,
                 "netns", NAMESPACE)
            for namespace, interface, address in ((LAN, HOST_IF, HOST_IP), (NAMESPACE, PHONE_IF, PHONE_IP)):
                _run("ip", "-n", namespace, "addr", "add", f"{address}/30", "dev", interface)
                _run("ip", "-n", namespace, "link", "set", interface, "up")
                _run("ip", "-n", namespace, "link", "set", "lo", "up")
            yield LAN
        finally:
            subprocess.run(["ip", "netns", "del", LAN], capture_output=True)  # the pair goes with it
            subprocess.run(["ip", "netns", "del", NAMESPACE], capture_output=True)


def _first_line(process: subprocess.Popen, timeout_s: float) -> str:
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    assert stdout is not None
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout_s).strip()
    except queue.Empty:
        raise AssertionError(f"serve --network printed no URL within {timeout_s:.0f} s") from None


def _agent_url(serve_log: Path, timeout_s: float = 30) -> str:
    """The agent server's HTTPS URL from serve's line "agent server https://... -> http://127.0.0.1:..."."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        words = serve_log.read_text().split()
        for i, word in enumerate(words[:-1]):
            if word == "server" and words[i + 1].startswith(f"https://{HOST_IP}:"):
                return words[i + 1]
        time.sleep(0.2)
    raise AssertionError(f"serve named no agent server URL:\n{serve_log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def served(phone_network, tmp_path_factory, workorders_db):
    """`build.py serve --network HOST_IP` with sign-in tokens, as `./sw serve --network` runs it; yields
    (the site's URL, the agent server's URL, the TLS folder) and stops it with SIGTERM."""
    work = tmp_path_factory.mktemp("phone-serve")
    state = work / "state"
    if server_kind() == "aegra":  # Postgres's cluster and socket: under .durable/ like the other test stacks
        state = ROOT / ".durable" / "test-runs" / f"phone-{os.getpid()}"
        shutil.rmtree(state, ignore_errors=True)
    env = {**os.environ, "SITEWALK_TOKENS": str(write_token_file(work))}
    cmd = ["ip", "netns", "exec", phone_network, sys.executable, "build.py", "serve", "--network", HOST_IP,
           "--tls-dir", str(work / "tls"),
           "--state-dir", str(state), *(["--durable"] if server_kind() == "aegra" else [])]
    log = open(work / "serve.err", "w")
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
                               start_new_session=True)
    try:
        site_url = _first_line(process, 600)
        assert site_url == f"https://{HOST_IP}:8443/", (work / "serve.err").read_text()[-2000:]
        agent_url = _agent_url(work / "serve.err")
        yield site_url, agent_url, work / "tls", work / "serve.err"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
        if server_kind() == "aegra":
            shutil.rmtree(state, ignore_errors=True)


def _phone_browser(playwright, folder: Path, ca: Path | None):
    """Chromium run in the phone's namespace, with a HOME of its own whose NSS database trusts `ca`."""
    home = folder / "home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    _run("certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password")
    if ca is not None:
        _run("certutil", "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "Sitewalk local CA", "-i", str(ca))
    exe = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    wrapper = folder / "chromium-in-the-phone"
    wrapper.write_text(f'#!/bin/sh\nexport HOME="{home}"\nexec ip netns exec {NAMESPACE} "{exe}" "$@"\n')
    wrapper.chmod(0o755)
    return playwright.chromium.launch(executable_path=str(wrapper), args=CHROMIUM_ARGS)


_CORS_PROBE = """
import ssl, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/info", headers={"Origin": sys.argv[2]})
context = ssl.create_default_context(cafile=sys.argv[3])
with urllib.request.urlopen(request, timeout=10, context=context) as answer:
    print(answer.headers.get("Access-Control-Allow-Origin") or "")
"""


def _cors(agent_url: str, origin: str, ca: Path) -> str | None:
    """The Access-Control-Allow-Origin the agent server answers a call from `origin` with, asked from the
    phone's namespace (the LAN is not reachable from this machine's own)."""
    answer = subprocess.run(["ip", "netns", "exec", NAMESPACE, sys.executable, "-c", _CORS_PROBE, agent_url,
                             origin, str(ca)], capture_output=True, text=True, timeout=30, check=True)
    return answer.stdout.strip() or None


def test_the_csp_and_cors_name_the_network_origins_only(served):
    site_url, agent_url, tls, _ = served
    site_origin = site_url.rstrip("/")
    assert _cors(agent_url, site_origin, tls / "ca.crt") == site_origin
    assert _cors(agent_url, "https://elsewhere.example", tls / "ca.crt") is None
    assert _cors(agent_url, "http://127.0.0.1:8000", tls / "ca.crt") is None


def test_without_the_ca_the_phone_refuses_the_site(served, playwright, tmp_path):
    """The control: the same browser in the same namespace, without the CA in its NSS database."""
    site_url = served[0]
    browser = _phone_browser(playwright, tmp_path, ca=None)
    try:
        page = browser.new_page()
        with pytest.raises(Exception, match="ERR_CERT_AUTHORITY_INVALID"):
            page.goto(site_url)
    finally:
        browser.close()


def test_a_phone_on_the_network_runs_an_inspection_with_its_position(served, playwright, tmp_path, app_in):
    site_url, agent_url, tls, serve_log = served
    browser = _phone_browser(playwright, tmp_path, ca=tls / "ca.crt")
    context = browser.new_context(service_workers="allow", viewport=PHONE, geolocation=PIER,
                                  permissions=["geolocation"])
    watch = BrowserWatch(context)
    try:
        app = app_in(context.new_page(), site_url, agent_url, watch)
        app.expect_console_error(r"status of 401")  # the first request before the sign-in
        page = app.page
        page.goto(site_url)  # the URL the terminal prints (and its QR code holds): config.json names the server
        wait_until_ready(page)
        assert page.evaluate("[window.isSecureContext, location.origin]") == [True, site_url.rstrip("/")]
        assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.active.scriptURL)").startswith(site_url)
        app.sign_in(ANA.token, ANA.identity)
        inspection = "inspection-phone-1"
        app.seed_idb(f"sitewalk:draft:{inspection}", json.dumps({**DRAFT, "inspection_id": inspection}))
        app.begin(inspection, "script: locate")
        dialog = page.get_by_role("dialog", name="Share this device's position?")
        dialog.wait_for(state="visible")
        dialog.get_by_role("button", name="Allow").click()
        app.wait_finished(inspection)
        assert page.locator("#sw-status").inner_text().startswith(f"Inspection {inspection}: done")
        assert app.tool_call("get_current_location").get_attribute("data-state") == "succeeded"
        assert "The device is at 59.3293, 18.0686" in page.locator("#sw-transcript").inner_text()
        assert {r.url.split("/")[2] for r in watch.requests} == {f"{HOST_IP}:8443", f"{HOST_IP}:8444"}
        watch.check()
    except Exception:
        print(serve_log.read_text()[-3000:], file=sys.stderr)
        raise
    finally:
        context.close()
        browser.close()
