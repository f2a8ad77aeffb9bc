"""The inspection graph served through a graph factory, so that each run is traced into its inspection's trace.

`langgraph_api` (`langgraph dev`) and Aegra both call a graph factory per request with the run's config and a
`ServerRuntime`, and both hold an async-context-manager factory open while the run streams, in the task that
streams it. For a run (`access_context == "threads.create_run"`) this one attaches the inspection's root as the
OpenTelemetry parent (`run_context.traced_run`); for reads it hands the graph back untouched. `sitewalk_build`
serves the inspection graph through it only when tracing is on (`SITEWALK_TRACES`); an operator who runs a
server by hand points langgraph.json's `inspection` at `sitewalk_agent.tracing.graph:inspection`.

The thread's trace head (see `run_context`) is read from and written to the server's store here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph_sdk.runtime import ServerRuntime

from sitewalk_agent.tracing.run_context import HEAD_NAMESPACE, run_trace, traced_run
from sitewalk_agent.tracing.setup import ensure_installed

__all__ = ["inspection"]


@asynccontextmanager
async def inspection(config: dict[str, Any], runtime: ServerRuntime) -> AsyncIterator[Any]:
    """The inspection graph; while a run streams, its spans go into the inspection's trace."""
    from sitewalk_agent.graph import graph  # noqa: PLC0415 (built once, at the server's first import)

    provider = ensure_installed()
    if provider is None or runtime.access_context != "threads.create_run":
        yield graph
        return
    run = run_trace(config, await _head(runtime, config))
    if run is None:
        yield graph
        return
    if (config.get("configurable") or {}).get("checkpoint_id"):
        await _set_head(runtime, run.thread_id, run.forked_from)
    with traced_run(run, provider):
        yield graph


async def _head(runtime: ServerRuntime, config: dict[str, Any]) -> str | None:
    thread_id = (config.get("configurable") or {}).get("thread_id")
    store = getattr(runtime, "store", None)
    if store is None or not thread_id:
        return None
    item = await store.aget(HEAD_NAMESPACE, str(thread_id))
    head = item.value.get("forked_from") if item is not None else None
    return head if isinstance(head, str) else None


async def _set_head(runtime: ServerRuntime, thread_id: str, forked_from: str | None) -> None:
    store = getattr(runtime, "store", None)
    if store is not None:
        await store.aput(HEAD_NAMESPACE, thread_id, {"forked_from": forked_from})
