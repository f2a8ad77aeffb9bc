"""langgraph.json with CORS restricted to the site's origins, for either agent server.

langgraph.json allows every origin (`http.cors.allow_origins: ["*"]`), which suits development.
A deployment names its site's origins instead: `restricted_config(["https://site.example"])` writes
a copy of the config whose `http.cors` allows only those, with the graph paths and dependencies
made absolute so the copy works from any folder. Both `langgraph dev` (`--config`) and Aegra
(AEGRA_CONFIG) read `http.cors` from it; a browser page from another origin then gets no
Access-Control-Allow-Origin and cannot read any answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sitewalk_build.errors import AgentServerStartError
from sitewalk_build.paths import ROOT

__all__ = ["restricted_config"]


def _origin(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise AgentServerStartError(f"not an origin (scheme://host[:port]): {url!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _absolute(ref: str, base: Path) -> str:
    """'./py_src/x.py:graph' -> '<base>/py_src/x.py:graph'; module refs ('pkg.mod:obj') stay as they are."""
    path, colon, name = ref.rpartition(":") if ":" in ref else (ref, "", "")
    if not (path.startswith(".") or "/" in path):
        return ref
    return f"{(base / path).resolve()}{colon}{name}"


def restricted_config(origins: Sequence[str], source: Path = ROOT / "langgraph.json",
                      out: Path | None = None) -> Path:
    """Write `source` with `http.cors.allow_origins` = `origins` to `out` (default beside .cache/); return it."""
    if not origins:
        raise AgentServerStartError("restricted_config needs at least one origin")
    config: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    base = source.resolve().parent
    config["graphs"] = {name: _absolute(ref, base) for name, ref in config.get("graphs", {}).items()}
    config["dependencies"] = [_absolute(dep, base) for dep in config.get("dependencies", [])]
    cors = config.setdefault("http", {}).setdefault("cors", {})
    cors["allow_origins"] = sorted({_origin(o) for o in origins})
    out = out or ROOT / ".cache" / "agent-server" / "langgraph.cors.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return out
