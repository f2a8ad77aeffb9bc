"""Server-side tracing of Sitewalk's agent runs over OpenTelemetry (issue 27): off unless `SITEWALK_TRACES` is set.

`SITEWALK_TRACES` is the OTLP/HTTP traces URL of the backend (Phoenix from `./sw serve --traces`, any OTLP
collector, or LangSmith's OTLP endpoint with its key in the standard `OTEL_EXPORTER_OTLP_HEADERS`). Unset, this
package imports nothing of OpenTelemetry and the server runs exactly as without it: `enabled()` is the only
thing the graph's modules call, and it reads one environment variable.

Why OpenInference's LangChain instrumentation, not LangSmith's OpenTelemetry export: OpenInference makes real
OpenTelemetry SDK spans from LangChain's callbacks, parented by the *current OpenTelemetry context*, so a run
nests under the inspection's root span that `sitewalk_agent.tracing.run_context` attaches, and the W3C
`traceparent` sent to the browser names a span that exists. LangSmith's export builds spans from its own run
trees (it needs LangSmith tracing on and its own run context), so it could not join the browser's spans or
the inspection's trace. Aegra's `OTEL_TARGETS` installs this same instrumentor, so both servers trace alike.

Modules: `setup` (the tracer provider and exporter), `run_context` (one trace per inspection: the run's parent
and the attributes of every span of a run), `graph` (the graph factory that applies it on both servers),
`interrupts` (the `traceparent` of the headless and review interrupt values), `pinned_ids` (spans with ids
named in advance: the inspection's root), `device_spans` and `device_route` (the browser's spans: checked and
exported under their parents, `POST /sitewalk/device-spans`).
"""

from __future__ import annotations

import os

__all__ = ["ENV", "enabled"]

ENV = "SITEWALK_TRACES"


def enabled() -> bool:
    """Whether this server traces: `SITEWALK_TRACES` names an OTLP endpoint."""
    return bool(os.environ.get(ENV, "").strip())
