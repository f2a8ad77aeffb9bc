"""The `traceparent` put into the headless and the review interrupt values: the span the browser's work nests under.

- A headless tool call: OpenInference's span of the tool run (`get_current_span()` inside the tool's body),
  given the call's `sitewalk.tool_call_id` and `sitewalk.tool`.
- A review: the reviewed tool has not started yet (the review runs in `wrap_tool_call`, before it), so a span
  of ours, `sitewalk.review`, is made under the tools node's span and ended when the interrupt is raised.

Only the call's id, the tool's name and the args revision go into attributes: never its arguments or its
result (OpenInference records those as the run's input and output, from what reached the server).

`step_checkpoint` names the checkpoint the interrupted step started from (the one the thread's state is at
while the interrupt waits): the server puts it into the interrupt value next to the `traceparent`, so the
browser's spans of the call carry `sitewalk.checkpoint_id` even when it read the interrupt from a stream
(which carries no checkpoint).
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry.trace import Span

from sitewalk_agent.tracing.setup import current
from sitewalk_shared.contracts.trace_wire import format_traceparent

__all__ = ["REVIEW_SPAN", "review_traceparent", "step_checkpoint", "tool_call_traceparent"]

REVIEW_SPAN = "sitewalk.review"


def _langchain_span() -> Span | None:
    from openinference.instrumentation.langchain import get_current_span  # noqa: PLC0415

    span = get_current_span()
    return span if span is not None and span.get_span_context().is_valid else None


def _traceparent(span: Span) -> str:
    ctx = span.get_span_context()
    return format_traceparent(f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}", ctx.trace_flags.sampled)


def step_checkpoint(config: Mapping[str, object] | None) -> str | None:
    """The checkpoint the running step started from, from its task's config: LangGraph names it per graph
    namespace in `configurable.checkpoint_map` (the thread's own graph under ""); a config that names a
    `checkpoint_id` (a run's, before the step's own config replaces it) is the fallback. None when neither."""
    configurable = (config or {}).get("configurable")
    if not isinstance(configurable, Mapping):
        return None
    by_namespace = configurable.get("checkpoint_map")
    found = by_namespace.get("") if isinstance(by_namespace, Mapping) else None
    found = found or configurable.get("checkpoint_id")
    return found if isinstance(found, str) and found else None


def _call_attributes(call: Mapping[str, object], config: Mapping[str, object] | None) -> dict[str, str]:
    attrs = {"sitewalk.tool_call_id": str(call.get("id") or ""), "sitewalk.tool": str(call.get("name") or "")}
    checkpoint_id = step_checkpoint(config)
    if checkpoint_id:
        attrs["sitewalk.checkpoint_id"] = checkpoint_id
    return attrs


def tool_call_traceparent(call: Mapping[str, object], config: Mapping[str, object] | None = None) -> str | None:
    """The traceparent of this headless call's span (None when no span is recording)."""
    span = _langchain_span() if current() is not None else None
    if span is None:
        return None
    span.set_attributes(_call_attributes(call, config))
    return _traceparent(span)


def review_traceparent(call: Mapping[str, object], revision: int,
                       config: Mapping[str, object] | None = None) -> str | None:
    """A `sitewalk.review` span for this call's review, ended now; its traceparent (None when not tracing)."""
    provider = current()
    if provider is None:
        return None
    parent = _langchain_span()
    context = trace.set_span_in_context(parent) if parent is not None else None
    attrs: dict[str, str | int] = {**_call_attributes(call, config), "sitewalk.args_revision": revision}
    span = provider.get_tracer("sitewalk.tracing").start_span(REVIEW_SPAN, context=context, attributes=attrs)
    span.end()
    return _traceparent(span)
