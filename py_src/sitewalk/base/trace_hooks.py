"""The one seam between the app and device tracing (issue 27): calls that cost nothing while tracing is off.

The parts of the app that do traceable work (a headless call, a permission, a device API, a screen validated
and drawn, review decisions, the boot) call these functions, one line at each place. While no recorder is
installed (tracing off, the default: config.json has no `"traces": true`) every call returns at once: `span`
hands back the one module-level `OFF` handle, no span object is made, and the recorder's package
(`sitewalk.tracing`) is never imported, so its bytes are never fetched. With tracing on, the app installs
the recorder (`sitewalk.tracing.start`) and these calls go to it.

Attributes are given by their short names (`tool_call_id=...`); the recorder keeps only the keys of the one
allowlist (`sitewalk_shared.contracts.device_trace`) and drops every other, so a value the site policy
keeps on the device cannot reach a span even if a caller passed one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

__all__ = ["CHECKPOINTS", "OFF", "Recorder", "SpanHandle", "checkpoint", "decisions", "flush", "install", "on",
           "permission", "run_from", "span", "stream_modes", "thread"]

CHECKPOINTS = "checkpoints"  # the stream mode that names each step's checkpoint as the step begins


class SpanHandle(Protocol):
    def set(self, **attributes: object) -> None:
        """Add attributes (short names) to the span."""

    def fail(self, code: str) -> None:
        """End the span as an error with this typed code."""

    def answered(self, envelope: Mapping[str, Any]) -> None:
        """A headless call's envelope: its result's size, or its error's code."""

    def screen(self, spec: object, issues: list[Any]) -> None:
        """A screen validated and drawn: its element and issue counts, its issue codes."""


class Recorder(Protocol):
    def span(self, name: str, carrier: object, attributes: Mapping[str, object]) -> AbstractContextManager[SpanHandle]:
        ...

    def decisions(self, state: Mapping[str, Any], decisions: Mapping[str, Mapping[str, Any]]
                  ) -> AbstractContextManager[None]:
        ...

    def thread(self, thread_id: str, forked_from: str | None, state: Mapping[str, Any] | None) -> None:
        ...

    def flush(self) -> None:
        ...

    def forked(self, thread_id: str, checkpoint_id: str) -> None:
        ...


class _Off:
    """What every call gets while tracing is off: one shared object that does nothing."""

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def set(self, **attributes: object) -> None:
        return None

    def fail(self, code: str) -> None:
        return None

    def answered(self, envelope: Mapping[str, Any]) -> None:
        return None

    def screen(self, spec: object, issues: list[Any]) -> None:
        return None


OFF = _Off()
_recorder: Recorder | None = None


def install(recorder: Recorder | None) -> None:
    """Turn tracing on with this recorder (None: off again)."""
    global _recorder
    _recorder = recorder


def on() -> bool:
    return _recorder is not None


def span(name: str, carrier: object = None, **attributes: object) -> AbstractContextManager[SpanHandle]:
    """A span over the `with` block; `carrier` is an interrupt value whose `traceparent` names its parent."""
    if _recorder is None:
        return OFF
    return _recorder.span(name, carrier, attributes)


def decisions(state: Mapping[str, Any], sent: Mapping[str, Mapping[str, Any]]) -> AbstractContextManager[Any]:
    """One span per review decision sent ({interrupt_id: decision}), under its review's traceparent in `state`."""
    if _recorder is None:
        return OFF
    return _recorder.decisions(state, sent)


def thread(thread_id: str, state: Mapping[str, Any] | None = None, forked_from: str | None = None) -> None:
    """The inspection the spans belong to from now on: its thread, the thread's state (its checkpoint is the
    step the next spans are at) and the checkpoint a fork left."""
    if _recorder is not None:
        _recorder.thread(thread_id, forked_from, state)


def stream_modes(modes: tuple[str, ...]) -> tuple[str, ...]:
    """A run's stream modes: off, `modes` as they are; on, also `checkpoints`, so the device's spans of a step
    (a screen drawn from the stream) can name the checkpoint it started from (the stream carries none else)."""
    return modes if _recorder is None else (*modes, CHECKPOINTS)


def checkpoint(thread_id: str, event: object) -> None:
    """A `checkpoints` stream event of the thread's own graph: the next step starts from this checkpoint."""
    if _recorder is None or not isinstance(event, Mapping):
        return
    config = event.get("config")
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    found = configurable.get("checkpoint_id") if isinstance(configurable, Mapping) else None
    if isinstance(found, str) and found:
        _recorder.thread(thread_id, None, {"checkpoint": {"checkpoint_id": found}})


def run_from(thread_id: str, run_kwargs: Mapping[str, object]) -> None:
    """A run is about to start: one from a checkpoint (a replay, a fork; not a resume) begins a trace of its own,
    `forked_from` that checkpoint, as the server names it (`inspection_root(thread_id, checkpoint_id)`)."""
    if _recorder is None or run_kwargs.get("command") is not None:
        return
    checkpoint = run_kwargs.get("checkpoint")
    found = checkpoint.get("checkpoint_id") if isinstance(checkpoint, Mapping) else run_kwargs.get("checkpoint_id")
    if isinstance(found, str) and found:
        _recorder.forked(thread_id, found)


def flush() -> None:
    """Send the finished spans soon (after a run or a delivered resume); offline they wait for the next time."""
    if _recorder is not None:
        _recorder.flush()


async def permission(name: str, query: Callable[[str], Awaitable[str]]) -> None:
    """With tracing on, a span of the browser permission's state (asked with `query`); off, nothing is asked."""
    if _recorder is None:
        return
    with _recorder.span("device.permission", None, {"device_api": name}) as traced:
        traced.set(permission_state=await query(name))
