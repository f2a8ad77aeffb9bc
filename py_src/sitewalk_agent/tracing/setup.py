"""The server's tracer provider: OTLP over HTTP to `SITEWALK_TRACES`, with OpenInference's LangChain instrumentor.

`ensure_installed()` is called when the graph module loads (and by the device-span route): with tracing off it
returns None and imports nothing. On Aegra with `OTEL_TARGETS=OTLP`, Aegra has already installed a global SDK
provider with its exporter and the same instrumentor (its lifespan sets them up before it loads graphs): that
provider is used, not a second one. Either way `RunAttributes` is added, so every span of a run carries the
run's thread (and the checkpoint a replay or fork left).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sitewalk_agent.tracing import ENV, enabled

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

__all__ = ["current", "ensure_installed", "install", "uninstall"]

SERVICE_NAME = "sitewalk-agent"
_installed: list[TracerProvider] = []  # the provider in use (at most one)


def current() -> TracerProvider | None:
    """The provider tracing uses, or None while nothing is installed."""
    return _installed[0] if _installed else None


def ensure_installed() -> TracerProvider | None:
    """The provider in use, installed on first call when `SITEWALK_TRACES` is set; None when tracing is off."""
    if not enabled():
        return None
    if _installed:
        return _installed[0]
    from opentelemetry import trace  # noqa: PLC0415 (only when tracing is on)
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415

    existing = trace.get_tracer_provider()
    if isinstance(existing, TracerProvider):  # Aegra's OTEL_TARGETS (or an operator's own setup) came first
        return install(existing)
    provider = _otlp_provider(os.environ[ENV].strip())
    trace.set_tracer_provider(provider)
    return install(provider)


def _otlp_provider(endpoint: str) -> TracerProvider:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: PLC0415
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: PLC0415

    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    # Headers (e.g. LangSmith's x-api-key) come from the standard OTEL_EXPORTER_OTLP_HEADERS.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    return provider


def install(provider: TracerProvider) -> TracerProvider:
    """Use `provider`: add the run attributes to its spans and instrument LangChain with it (once)."""
    from openinference.instrumentation.langchain import LangChainInstrumentor  # noqa: PLC0415

    from sitewalk_agent.tracing.run_context import RunAttributes  # noqa: PLC0415

    provider.add_span_processor(RunAttributes())
    instrumentor = LangChainInstrumentor()
    if not instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.instrument(tracer_provider=provider)
    _installed[:] = [provider]
    return provider


def uninstall() -> None:
    """Undo `install` (tests): LangChain uninstrumented, no provider in use."""
    from openinference.instrumentation.langchain import LangChainInstrumentor  # noqa: PLC0415

    instrumentor = LangChainInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
    _installed.clear()
