"""Tracing on for the servers Sitewalk starts (issue 27): their environment, the traced langgraph.json, config.json.

- The agent servers export to an OTLP/HTTP traces URL: `SITEWALK_TRACES` (read by sitewalk_agent.tracing, on
  both servers) and, on Aegra, its own `OTEL_TARGETS=OTLP` with `OTEL_EXPORTER_OTLP_ENDPOINT` (Aegra then
  installs the tracer provider and OpenInference's instrumentor, and sitewalk_agent.tracing uses them).
- The inspection graph is served through its tracing factory (`sitewalk_agent/tracing/graph.py:inspection`),
  which puts every run of an inspection into one trace: `traced_config` writes langgraph.json with it.
- The site is built with config.json's `"traces": true`, so the browser traces too.

Off (the default) none of this happens and the servers run on langgraph.json as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sitewalk_build.paths import ROOT

__all__ = ["TRACES_ENV", "TRACED_GRAPH", "traced_config", "tracing_env"]

TRACES_ENV = "SITEWALK_TRACES"  # sitewalk_agent.tracing.ENV (the build tooling imports no server code)
TRACED_GRAPH = "./py_src/sitewalk_agent/tracing/graph.py:inspection"


def tracing_env(otlp_url: str, aegra: bool = False) -> dict[str, str]:
    """The agent server's environment for exporting to `otlp_url` (an OTLP/HTTP traces URL)."""
    env = {TRACES_ENV: otlp_url}
    if aegra:
        env.update({"OTEL_TARGETS": "OTLP", "OTEL_EXPORTER_OTLP_ENDPOINT": otlp_url,
                    "OTEL_SERVICE_NAME": "sitewalk-agent"})
    return env


def traced_config(source: Path, out: Path) -> Path:
    """`source` (a langgraph.json) with the inspection graph served by its tracing factory, written to `out`.

    Paths are made absolute against `source`'s folder, so the copy works from anywhere (as isolated_config)."""
    config: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    base = source.resolve().parent
    graphs = dict(config.get("graphs", {}))
    graphs["inspection"] = TRACED_GRAPH
    config["graphs"] = {name: _absolute(ref, ROOT if ref == TRACED_GRAPH else base) for name, ref in graphs.items()}
    config["dependencies"] = [_absolute(dep, base) for dep in config.get("dependencies", [])]
    auth = config.get("auth")
    if isinstance(auth, dict) and isinstance(auth.get("path"), str):
        auth["path"] = _absolute(auth["path"], base)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return out


def _absolute(ref: str, base: Path) -> str:
    """'./x.py:name' or '.' -> absolute; module references ('pkg.mod:name') stay as they are."""
    path, colon, name = ref.rpartition(":") if ":" in ref else (ref, "", "")
    if not path.startswith("."):
        return ref
    return f"{(base / path).resolve()}{colon}{name}"
