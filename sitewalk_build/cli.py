"""The command line of build.py: ``build`` (default), ``serve`` and ``bench``."""

from __future__ import annotations

import argparse
from pathlib import Path

from sitewalk_build.assemble import build, build_lock, build_unlocked
from sitewalk_build.bench import PROFILES, cmd_bench
from sitewalk_build.errors import BuildError, log
from sitewalk_build.paths import DEFAULT_SERVER_URL, DIST
from sitewalk_build.serve import cmd_serve
from sitewalk_build.stale import is_stale, read_stamp

DESCRIPTION = "Build, serve and benchmark the Sitewalk static site."


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="build.py", description=DESCRIPTION)
    sub = p.add_subparsers(dest="cmd")
    pb = sub.add_parser("build", help="build dist/ (default)")
    pb.add_argument("--server", default=DEFAULT_SERVER_URL, help="default agent server URL")
    pb.add_argument("--force", action="store_true", help="build even if dist/ is up to date")
    pb.add_argument("--assistant", default=None, help="default assistant (graph) id, written into config.json")
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
    pe = sub.add_parser("bench", help="boot benchmark in headless Chromium")
    pe.add_argument("--runs", type=int, default=3, help="runs per profile")
    pe.add_argument("--profile", choices=[*PROFILES, "all"], default="all",
                    help="desktop (as is), phone (4x CPU, 1.6 Mbit/s, 150 ms RTT) or both")
    pe.add_argument("--json", default=None, help="write the figures to this file (default .bench/boot.json)")
    for sp in (pb, ps, pe):
        sp.add_argument("--dist", default=str(DIST), help=argparse.SUPPRESS)
    return p


def cmd_build(args: argparse.Namespace) -> int:
    """The server URL and the assistant id are inputs of the build (config.json is precached with its
    integrity, so it is written before the service worker's list, never after). Without --assistant
    the previous build's assistant is kept; --assistant "" drops it (the app's default then)."""
    server = getattr(args, "server", DEFAULT_SERVER_URL)
    dist = Path(getattr(args, "dist", DIST))
    assistant = getattr(args, "assistant", None)
    if assistant is None:
        assistant = (read_stamp(dist) or {}).get("assistantId")
    assistant = assistant or None
    if getattr(args, "force", False):
        build(dist, server_url=server, assistant_id=assistant)
        return 0
    with build_lock():  # checked and built under one lock: two `./sw test` at once build once
        if is_stale(dist, server_url=server, assistant_id=assistant):
            build_unlocked(dist, server_url=server, assistant_id=assistant)
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
