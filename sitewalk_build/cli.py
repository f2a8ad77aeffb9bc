"""The command line of build.py: ``build`` (default), ``serve`` and ``bench``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitewalk.base.seconds import seconds
from sitewalk_build.assemble import build, build_lock, build_unlocked
from sitewalk_build.bench import PROFILES, cmd_bench
from sitewalk_build.errors import BuildError, log
from sitewalk_build.paths import DEFAULT_SERVER_URL, DIST
from sitewalk_build.serve import cmd_serve
from sitewalk_build.stale import is_stale, read_stamp

DESCRIPTION = "Build, serve and benchmark the Sitewalk static site."
# config.json's run limits, by their option: read by the app (session/stuck_limits.py), checked alike here
LIMIT_OPTIONS = {"stream_stall_seconds": "streamStallSeconds", "stuck_seconds": "stuckSeconds"}


def limit_value(option: str) -> Callable[[str], float | str]:
    """The argparse type of a run limit: the app's rule (sitewalk.base.seconds); "" drops the value."""
    def parse(text: str) -> float | str:
        if text == "":
            return ""
        try:
            return seconds(text, option)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="build.py", description=DESCRIPTION)
    sub = p.add_subparsers(dest="cmd")
    pb = sub.add_parser("build", help="build dist/ (default)")
    pb.add_argument("--server", default=None,
                    help=f"default agent server URL (default: the previous build's, else {DEFAULT_SERVER_URL}; "
                         f'"" for {DEFAULT_SERVER_URL})')
    pb.add_argument("--force", action="store_true", help="build even if dist/ is up to date")
    pb.add_argument("--assistant", default=None, help="default assistant (graph) id, written into config.json")
    pb.add_argument("--stream-stall-seconds", type=limit_value("--stream-stall-seconds"), default=None,
                    metavar="N", help="streamStallSeconds in config.json: a silent stream's limit (1-3600)")
    pb.add_argument("--stuck-seconds", type=limit_value("--stuck-seconds"), default=None, metavar="N",
                    help="stuckSeconds in config.json: silence before a run is checked for stuck (1-3600)")
    pb.add_argument("--traces", action="store_true",
                    help='config.json "traces": true, the browser traces (never kept from a previous build)')
    ps = sub.add_parser("serve", help="build if stale, start the agent server, serve dist/")
    ps.add_argument("--port", type=int, default=None, help="static site port (default 8000 or free)")
    ps.add_argument("--server-port", type=int, default=None, help="agent server port (default free)")
    ps.add_argument("--base", default="/", help="serve under this path prefix, e.g. /sitewalk/")
    ps.add_argument("--config", default="langgraph.json", help="agent server config")
    ps.add_argument("--verbose", action="store_true", help="log every static request")
    ps.add_argument("--durable", action="store_true", help="Aegra on Postgres instead of langgraph dev")
    ps.add_argument("--workers", type=int, default=1, help="with --durable: 2 adds Redis and a second server")
    ps.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                    help="CORS: let only this origin call the agent server (repeatable; default any)")
    ps.add_argument("--network", nargs="?", const="", default=None, metavar="ADDRESS",
                    help="for a phone on the same network: serve both over HTTPS (a local CA in .tls/) on "
                         "this machine's network address, or ADDRESS; --port (default 8443) is the site's, "
                         "--server-port (default 8444) the agent server's; prints the URL and a QR code")
    ps.add_argument("--open-server", action="store_true",
                    help="with --network: start without sign-in tokens (SITEWALK_TOKENS), open to anyone on "
                         "the network (refused otherwise)")
    ps.add_argument("--traces", nargs="?", const="phoenix", default=None, metavar="OTLP_URL",
                    help="trace the agent server and the browser: into Phoenix, started here (its UI URL is "
                         "printed), or to OTLP_URL (an OTLP/HTTP traces URL; SITEWALK_TRACES in the environment "
                         "does the same); docs/operating.md")
    ps.add_argument("--tls-dir", default=None, help=argparse.SUPPRESS)  # the tests' own CA (default .tls/)
    ps.add_argument("--state-dir", default=None, help=argparse.SUPPRESS)  # the tests' own server state
    pe = sub.add_parser("bench", help="boot benchmark in headless Chromium")
    pe.add_argument("--runs", type=int, default=3, help="runs per profile")
    pe.add_argument("--profile", choices=[*PROFILES, "all"], default="all",
                    help="desktop (as is), phone (4x CPU, 1.6 Mbit/s, 150 ms RTT) or both")
    pe.add_argument("--json", default=None, help="write the figures to this file (default .bench/boot.json)")
    for sp in (pb, ps, pe):
        sp.add_argument("--dist", default=str(DIST), help=argparse.SUPPRESS)
    return p


def limits_of(args: argparse.Namespace, previous: dict[str, Any]) -> dict[str, float]:
    """The run limits to build with: each option as given, else the previous build's; "" drops one."""
    kept = dict(previous.get("limits") or {})
    for option, key in LIMIT_OPTIONS.items():
        value = getattr(args, option, None)
        if value == "":
            kept.pop(key, None)
        elif value is not None:
            kept[key] = value
    return kept


def cmd_build(args: argparse.Namespace) -> int:
    """The server URL, the assistant id and the run limits are inputs of the build (config.json is
    precached with its integrity, so it is written before the service worker's list, never after).
    Without --server (--assistant, --stuck-seconds, --stream-stall-seconds) the previous build's value is
    kept, as `ensure_built` keeps it; "" drops it (the default server, the app's default for the others)."""
    dist = Path(getattr(args, "dist", DIST))
    previous = read_stamp(dist) or {}
    server = getattr(args, "server", None)
    if server is None:
        server = previous.get("agentServerUrl")
    server = server or DEFAULT_SERVER_URL
    assistant = getattr(args, "assistant", None)
    if assistant is None:
        assistant = previous.get("assistantId")
    inputs: dict[str, Any] = {"server_url": server, "assistant_id": assistant or None,
                              "limits": limits_of(args, previous), "traces": bool(getattr(args, "traces", False))}
    if getattr(args, "force", False):
        build(dist, **inputs)
        return 0
    with build_lock():  # checked and built under one lock: two `./sw test` at once build once
        if is_stale(dist, **inputs):
            build_unlocked(dist, **inputs)
        else:
            log(f"{dist.name}/ is up to date")
    return 0


COMMANDS = {None: cmd_build, "build": cmd_build, "serve": cmd_serve, "bench": cmd_bench}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.cmd](args)
    except BuildError as exc:
        log(f"build failed: {exc}")
        return 1
