"""`./sw serve --traces` (sitewalk_build/traces.py, serve.Traces): where the spans go, the servers' environment,
the langgraph.json that serves the inspection graph through its tracing factory, and SITEWALK_TRACES blanked for
servers started without it (Phoenix itself is started by the tests' `phoenix` fixture and the e2e)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitewalk_build.agent_server import agent_server_env  # noqa: E402
from sitewalk_build.durable import AegraSettings, aegra_env  # noqa: E402
from sitewalk_build.serve import Traces  # noqa: E402
from sitewalk_build.traces import TRACED_GRAPH, traced_config, tracing_env  # noqa: E402

URL = "http://127.0.0.1:4318/v1/traces"


def _args(traces: str | None, state_dir: Path) -> argparse.Namespace:
    return argparse.Namespace(traces=traces, state_dir=str(state_dir))


def test_the_inspection_graph_is_served_through_its_tracing_factory_the_others_as_they_were(tmp_path):
    written = json.loads(traced_config(ROOT / "langgraph.json", tmp_path / "traced.json").read_text())
    source = json.loads((ROOT / "langgraph.json").read_text())
    assert written["graphs"]["inspection"] == str((ROOT / TRACED_GRAPH.split(":")[0]).resolve()) + ":inspection"
    assert Path(written["graphs"]["inspection"].split(":")[0]).is_file()
    assert set(written["graphs"]) == set(source["graphs"])
    assert all(Path(ref.split(":")[0]).is_file() for ref in written["graphs"].values())
    assert written["http"] == source["http"] and written["auth"]["path"] == source["auth"]["path"]


def test_aegra_gets_its_own_otlp_target_too():
    assert tracing_env(URL) == {"SITEWALK_TRACES": URL}
    assert tracing_env(URL, aegra=True) == {"SITEWALK_TRACES": URL, "OTEL_TARGETS": "OTLP",
                                            "OTEL_EXPORTER_OTLP_ENDPOINT": URL, "OTEL_SERVICE_NAME": "sitewalk-agent"}


@pytest.mark.parametrize("asked, env, on, url", [
    (None, "", False, None),  # off by default
    ("phoenix", "", True, None),  # --traces: a Phoenix started here (its URL once it runs)
    (URL, "", True, URL),  # --traces URL
    (None, URL, True, URL),  # SITEWALK_TRACES in the caller's environment does the same
])
def test_where_the_spans_go(monkeypatch, tmp_path, asked, env, on, url):
    monkeypatch.setenv("SITEWALK_TRACES", env)
    traces = Traces(_args(asked, tmp_path))
    assert (traces.on, traces.otlp_url) == (on, url)
    assert traces.config("langgraph.json").endswith("langgraph.traced.json") == on
    assert traces.env(durable=False) == ({"SITEWALK_TRACES": url} if url else {})


def test_servers_started_without_tracing_do_not_trace_whatever_the_callers_environment(monkeypatch):
    monkeypatch.setenv("SITEWALK_TRACES", URL)
    assert agent_server_env()["SITEWALK_TRACES"] == ""
    assert aegra_env(AegraSettings(database_url="postgresql://127.0.0.1/x"), 1)["SITEWALK_TRACES"] == ""
    assert agent_server_env(tracing_env(URL))["SITEWALK_TRACES"] == URL  # `--traces` passes it on
