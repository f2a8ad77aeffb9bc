#!/usr/bin/env python3
"""Build, serve and benchmark the Sitewalk static site.

    python build.py [build] [--server URL] [--assistant ID] [--stuck-seconds N]
                            [--stream-stall-seconds N] [--force]
    python build.py serve [--port P] [--server-port Q] [--base /sub/path/]
    python build.py bench [--runs N] [--profile desktop|phone|all]

``build`` writes ``dist/``: the Pyodide core; the pinned pure wheels merged
into one archive Python imports from in place (``wheels/site-packages.zip``,
their dist-info in ``wheels/site-packages-metadata.zip``), fetched by boot.js
with subresource integrity; the wheels with native code and the project's own
``sitewalk`` wheel, with a lock file for them (installed by loadPackage); the
files of ``web/`` (but web/bench, the benchmark's pages), a service worker with its precache
manifest and ``config.json``. The stdlib ships as what the app imports plus the rest, fetched on
demand; every archive is stored and every file gets precompressed ``.br``/``.gz`` siblings
(docs/static-hosting.md). Everything pinned lives in ``[tool.sitewalk.bundle]`` of
``pyproject.toml`` and every downloaded file is verified against its hash.
Downloads are cached in ``.cache/`` so a second build needs no network.

This file is the command line and the public face of the build tooling; the
work is done by the ``sitewalk_build`` package (one concern a module, see its
docstring). Importing it has no side effects. The helpers below are public and
used by the test fixtures:

    build(...)                  -> Path of dist
    ensure_built(...)           -> Path of dist (builds only when stale)
    is_stale(dist)              -> bool
    start_agent_server(port)    -> AgentServer (.url, .port, .stop(), .log_tail())
    serve_static(dist, port)    -> StaticServer (.url, .port, .stop())
    app_url(static_url, server_url) -> str
    free_port()                 -> int

The build itself uses only the standard library (plus ``pip``/``npm``/``node``
as subprocesses). ``bench`` needs playwright.
"""

from __future__ import annotations

import sys
from pathlib import Path

# The build checks the run limits it writes with the app's own rule (the pure `sitewalk.base.seconds`), so
# py_src is importable here even when build.py runs outside the project's venv.
sys.path.insert(0, str(Path(__file__).resolve().parent / "py_src"))

from sitewalk_build.agent_server import AgentServer, agent_server_env, start_agent_server
from sitewalk_build.assemble import STAGES, build, ensure_built
from sitewalk_build.bench import DESKTOP, PHONE, Profile, run_bench
from sitewalk_build.browser import CHROMIUM_ARGS, chromium_launch_args, wait_js
from sitewalk_build.bundle import canonical, load_bundle
from sitewalk_build.cli import main
from sitewalk_build.errors import AgentServerStartError, BuildError
from sitewalk_build.fetch import fetch_pyodide, fetch_wheel
from sitewalk_build.paths import DEFAULT_SERVER_URL, DIST, ROOT
from sitewalk_build.policy import csp, scan_dist
from sitewalk_build.ports import free_port
from sitewalk_build.stale import is_stale
from sitewalk_build.static_server import StaticServer, app_url, serve_static

__all__ = [
    "ROOT",
    "DIST",
    "DEFAULT_SERVER_URL",
    "BuildError",
    "AgentServerStartError",
    "AgentServer",
    "StaticServer",
    "STAGES",
    "load_bundle",
    "canonical",
    "fetch_pyodide",
    "fetch_wheel",
    "build",
    "ensure_built",
    "is_stale",
    "scan_dist",
    "csp",
    "start_agent_server",
    "agent_server_env",
    "serve_static",
    "app_url",
    "free_port",
    "chromium_launch_args",
    "CHROMIUM_ARGS",
    "wait_js",
    "run_bench",
    "Profile",
    "DESKTOP",
    "PHONE",
    "main",
]

if __name__ == "__main__":
    sys.exit(main())
