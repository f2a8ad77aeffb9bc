"""``build.py serve``: the agent server and the static site together, until Ctrl-C (or one of them dies).

On loopback over HTTP by default; with ``--network`` on the machine's network address over HTTPS, for
a phone on the same network (sitewalk_build/network.py says what that takes). With ``--traces`` both the
agent server and the browser trace (sitewalk_build/traces.py), into a Phoenix started here or to any OTLP URL."""

from __future__ import annotations

import argparse
import os
import signal
import time
import urllib.parse
from pathlib import Path
from types import FrameType

from sitewalk_build.agent_server import AgentServer, start_agent_server
from sitewalk_build.assemble import ensure_built
from sitewalk_build.durable import DurableServer, start_durable
from sitewalk_build.errors import AgentServerStartError, log
from sitewalk_build.network import (
    AGENT_PORT,
    CA_PATH,
    SITE_PORT,
    NetworkPlan,
    NetworkServeError,
    chosen_port,
    network_dist,
    open_server_refusal,
    primary_address,
    print_banner,
    server_tls,
    trust_line,
)
from sitewalk_build.paths import CACHE, ROOT
from sitewalk_build.phoenix import PhoenixServer, start_phoenix
from sitewalk_build.ports import port_free
from sitewalk_build.server_config import restricted_config
from sitewalk_build.static_server import StaticServer, app_url, serve_static
from sitewalk_build.tls_proxy import TlsProxy, start_tls_proxy
from sitewalk_build.traces import TRACES_ENV, traced_config, tracing_env

TOKENS_ENV = "SITEWALK_TOKENS"  # sitewalk_agent.auth.TOKENS_ENV (the build tooling imports no server code)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _watch(agent: AgentServer | DurableServer) -> int:
    """Wait until Ctrl-C (0) or the agent server's death (1)."""
    try:
        while agent.alive():
            time.sleep(0.5)
    except KeyboardInterrupt:
        log("stopping")
        return 0
    log(f"agent server died with exit code {agent.returncode}; last lines of its log:\n{agent.log_tail()}")
    return 1


class Traces:
    """Where `--traces` sends the spans: a Phoenix started here, or an OTLP URL of the caller's (None: off)."""

    def __init__(self, args: argparse.Namespace) -> None:
        wanted = args.traces or os.environ.get(TRACES_ENV, "").strip() or None
        self.state = (Path(args.state_dir).resolve() if args.state_dir else CACHE) / "traces"
        self.phoenix: PhoenixServer | None = None
        self.otlp_url: str | None = None if wanted in (None, "phoenix") else wanted
        self.on = wanted is not None

    def start(self) -> None:
        """Start Phoenix when it is the backend (its data in the state dir's traces/phoenix)."""
        if self.on and self.otlp_url is None:
            self.phoenix = start_phoenix(self.state / "phoenix")
            self.otlp_url = self.phoenix.otlp_url

    def config(self, config: str) -> str:
        """The agent server config: with tracing, the inspection graph served through its tracing factory."""
        return str(traced_config(Path(config) if Path(config).is_absolute() else ROOT / config,
                                 self.state / "langgraph.traced.json")) if self.on else config

    def env(self, durable: bool) -> dict[str, str]:
        return tracing_env(self.otlp_url, aegra=durable) if self.on and self.otlp_url else {}

    def say(self) -> None:
        if self.phoenix is not None:
            print(f"traces: {self.phoenix.url}", flush=True)
            log(f"Phoenix {self.phoenix.url} (its data in {self.phoenix.working_dir})")
        elif self.on:
            log(f"traces go to {self.otlp_url}")

    def stop(self) -> None:
        if self.phoenix is not None:
            self.phoenix.stop()


def _start_agent(args: argparse.Namespace, config: str, port: int | None,
                 traces: Traces | None = None) -> AgentServer | DurableServer:
    """langgraph dev, or Aegra on Postgres with --durable, on loopback; in --state-dir when given."""
    state = Path(args.state_dir).resolve() if args.state_dir else None
    if traces is not None:
        config = traces.config(config)
    env = traces.env(args.durable) if traces is not None else {}
    if args.durable:  # Aegra on Postgres (sitewalk_build/durable.py); DurableError is an AgentServerStartError
        if state is not None:
            return start_durable(args.workers, port=port, config=config, home=state, extra_env=env)
        return start_durable(args.workers, port=port, config=config, extra_env=env)
    if state is not None:
        return start_agent_server(port, config=config, state_dir=state, env=env)
    return start_agent_server(port, config=config, log_path=CACHE / "logs" / "agent-server.log", env=env)


def cmd_serve(args: argparse.Namespace) -> int:
    # SIGTERM/SIGHUP stop both servers the same way Ctrl-C does.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGHUP, _raise_interrupt)
    if args.network is not None:
        return _serve_network(args)
    dist = Path(args.dist)
    traces = Traces(args)
    ensure_built(dist, traces=traces.on)
    agent: AgentServer | DurableServer
    try:
        if args.allow_origin:  # CORS: only the site's origins (langgraph.json itself allows any)
            args.config = str(restricted_config(args.allow_origin, ROOT / args.config))
        traces.start()
        agent = _start_agent(args, args.config, args.server_port, traces)
    except AgentServerStartError as exc:
        traces.stop()
        log(str(exc))
        return 2
    port = args.port
    if port is None:
        port = 8000 if port_free(8000) else 0
    try:
        static = serve_static(dist, port, base=args.base, verbose=args.verbose)
    except OSError as exc:
        agent.stop()
        traces.stop()
        log(f"cannot serve on port {port}: {exc}")
        return 2
    print(app_url(static.url, agent.url), flush=True)
    traces.say()
    log(f"agent server {agent.url} (log {agent.log_path}); Ctrl-C stops both")
    try:
        return _watch(agent)
    finally:
        static.stop()
        agent.stop()
        traces.stop()


def _network_address(args: argparse.Namespace) -> str:
    """The address to serve on; NetworkServeError when there is none or an open server was not asked for."""
    if args.allow_origin:
        raise NetworkServeError("--allow-origin does not go with --network: CORS then allows the site's origin only")
    address: str = args.network or primary_address()
    refusal = open_server_refusal(address, os.environ.get(TOKENS_ENV), args.open_server)
    if refusal:
        raise NetworkServeError(refusal)
    return address


def _serve_network(args: argparse.Namespace) -> int:
    """The site over HTTPS on the network address, built for the agent server's TLS relay beside it."""
    try:
        address = _network_address(args)
    except NetworkServeError as exc:
        log(str(exc))
        return 2
    # here: tls_certs needs `cryptography`, and build.py's `build` runs without site-packages
    from sitewalk_build.tls_certs import PUBLIC_CA, TLS_DIR, ensure_certificates

    files = ensure_certificates(address, Path(args.tls_dir) if args.tls_dir else TLS_DIR)
    tls = server_tls(files)
    plan = NetworkPlan(address, chosen_port(args.port, SITE_PORT, address),
                       chosen_port(args.server_port, AGENT_PORT, address))
    traces = Traces(args)
    # its CSP's connect-src names the relay
    dist = ensure_built(network_dist(plan.relay_origin), server_url=plan.relay_origin, traces=traces.on)
    state = Path(args.state_dir).resolve() if args.state_dir else CACHE / "agent-server"
    static: StaticServer | None = None
    proxy: TlsProxy | None = None
    try:
        config = restricted_config([plan.site_origin], ROOT / args.config, out=state / "langgraph.network.json")
        traces.start()
        agent = _start_agent(args, str(config), None, traces)
    except AgentServerStartError as exc:
        traces.stop()
        log(str(exc))
        return 2
    try:
        proxy = start_tls_proxy(address, plan.relay_port, urllib.parse.urlsplit(agent.url).port or 0, tls)
        static = serve_static(dist, plan.site_port, host=address, base=args.base, verbose=args.verbose,
                              mounts={CA_PATH: files.public}, tls=tls)
    except OSError as exc:
        log(f"cannot serve on {address}: {exc}")
        _stop(static, proxy, agent)
        traces.stop()
        return 2
    print_banner(static.url)
    log(trust_line(static.url + CA_PATH + PUBLIC_CA))
    signin = "on" if os.environ.get(TOKENS_ENV, "").strip() else f"off (no {TOKENS_ENV})"
    log(f"agent server {proxy.url} -> {agent.url} (log {agent.log_path}); sign-in {signin}; Ctrl-C stops both")
    traces.say()
    try:
        return _watch(agent)
    finally:
        _stop(static, proxy, agent)
        traces.stop()


def _stop(static: StaticServer | None, proxy: TlsProxy | None, agent: AgentServer | DurableServer) -> None:
    if static is not None:
        static.stop()
    if proxy is not None:
        proxy.stop()
    agent.stop()
