"""``build.py serve``: the agent server and the static site together, until Ctrl-C (or one of them dies)."""

from __future__ import annotations

import argparse
import signal
import time
from pathlib import Path
from types import FrameType

from sitewalk_build.agent_server import AgentServer, port_free, start_agent_server
from sitewalk_build.assemble import ensure_built
from sitewalk_build.durable import DurableServer, start_durable
from sitewalk_build.errors import AgentServerStartError, log
from sitewalk_build.paths import CACHE, ROOT
from sitewalk_build.server_config import restricted_config
from sitewalk_build.static_server import app_url, serve_static


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


def cmd_serve(args: argparse.Namespace) -> int:
    # SIGTERM/SIGHUP stop both servers the same way Ctrl-C does.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGHUP, _raise_interrupt)
    dist = Path(args.dist)
    ensure_built(dist)
    agent: AgentServer | DurableServer
    try:
        if args.allow_origin:  # CORS: only the site's origins (langgraph.json itself allows any)
            args.config = str(restricted_config(args.allow_origin, ROOT / args.config))
        if args.durable:  # Aegra on Postgres (sitewalk_build/durable.py); DurableError is an AgentServerStartError
            agent = start_durable(args.workers, port=args.server_port, config=args.config)
        else:
            agent = start_agent_server(args.server_port, config=args.config,
                                       log_path=CACHE / "logs" / "agent-server.log")
    except AgentServerStartError as exc:
        log(str(exc))
        return 2
    port = args.port
    if port is None:
        port = 8000 if port_free(8000) else 0
    try:
        static = serve_static(dist, port, base=args.base, verbose=args.verbose)
    except OSError as exc:
        agent.stop()
        log(f"cannot serve on port {port}: {exc}")
        return 2
    print(app_url(static.url, agent.url), flush=True)
    log(f"agent server {agent.url} (log {agent.log_path}); Ctrl-C stops both")
    try:
        return _watch(agent)
    finally:
        static.stop()
        agent.stop()
