"""Tool-call arguments assembled per (namespace, call id), whatever protocol they came by.

The protocol readers (`run_stream`, `event_protocol`) turn wire events into three operations on a
`CallAssembler`: `delta` (append a fragment), `snapshot` (replace the arguments so far: the event
KIND says it is a snapshot, never the text) and `finish` (the message ended: parse once). Every
call has its own buffer, so parallel calls, subgraph namespaces and interleaved fragments never mix.

Work is linear in the stream: a fragment is appended to its call's list (no re-join per fragment);
the text is joined once, when the message ends. A view that shows growing arguments appends the
`CallUpdate.delta` it is given (or replaces with it when `replaced`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sitewalk_shared.errors import SitewalkError

from .lifecycle import CallLifecycle, CallStatus

__all__ = ["AssembledCall", "AssemblyError", "CallAssembler", "CallKey", "CallUpdate", "Namespace", "StreamCursor"]

Namespace = tuple[str, ...]
CallKey = tuple[Namespace, str]
"""(namespace, call id): the root graph's namespace is ()."""


class AssemblyError(SitewalkError, ValueError):
    """An event that cannot belong to the call it names (e.g. a fragment after the message ended)."""


@dataclass
class AssembledCall:
    namespace: Namespace
    call_id: str
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    args: dict[str, Any] | None = None  # set once the message ended and the text parsed to an object
    error: str | None = None  # why the finished arguments are unusable
    lifecycle: CallLifecycle = field(default_factory=CallLifecycle)

    def __post_init__(self) -> None:
        self.lifecycle.call_id = self.call_id

    @property
    def key(self) -> CallKey:
        return (self.namespace, self.call_id)

    @property
    def status(self) -> CallStatus:
        return self.lifecycle.status

    @property
    def args_text(self) -> str:
        """The arguments so far (joined on each read: read it when needed, not per fragment)."""
        return "".join(self.parts)


class CallUpdate(NamedTuple):  # a tuple: one is made per fragment, so it must be cheap
    """What one event changed: `delta` is the new text (the whole text when `replaced`)."""

    call: AssembledCall
    delta: str = ""
    replaced: bool = False
    finished: bool = False


class StreamCursor:
    """Which events were already taken, so a reconnect's replay is not applied twice.

    Decided by the protocol's own identity of an event (its `seq`, or its event id), never by its
    text: two equal fragments are both real. `seq` is monotonic within a thread's event stream, so one
    integer suffices; event ids are remembered in a set.
    """

    def __init__(self) -> None:
        self.last_seq: int | None = None
        self._ids: set[str] = set()

    def take(self, seq: int | None = None, event_id: str | None = None) -> bool:
        """True the first time an event is seen (then it is applied), False for a replay."""
        if seq is not None:
            if self.last_seq is not None and seq <= self.last_seq:
                return False
            self.last_seq = seq
        if event_id is not None:
            if event_id in self._ids:
                return False
            self._ids.add(event_id)
        return True


class CallAssembler:
    """Every call's arguments, keyed by (namespace, call id)."""

    def __init__(self) -> None:
        self.calls: dict[CallKey, AssembledCall] = {}

    def call(self, namespace: Namespace, call_id: str, name: str | None = None) -> AssembledCall:
        """The call under this key (created, collecting its arguments, on first sight)."""
        key = (namespace, call_id)
        found = self.calls.get(key)
        if found is None:
            found = self.calls[key] = AssembledCall(namespace, call_id, name)
        elif name and not found.name:
            found.name = name
        return found

    def delta(self, namespace: Namespace, call_id: str, fragment: str, name: str | None = None) -> CallUpdate:
        call = self._collecting(namespace, call_id, name)
        if fragment:
            call.parts.append(fragment)
        return CallUpdate(call, fragment)

    def snapshot(self, namespace: Namespace, call_id: str, args: str | dict[str, Any],
                 name: str | None = None) -> CallUpdate:
        """The arguments so far, whole: they replace what was collected (a dict is final arguments)."""
        call = self._collecting(namespace, call_id, name)
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        call.parts[:] = [text] if text else []
        return CallUpdate(call, text, replaced=True)

    def finish(self, namespace: Namespace, call_id: str) -> CallUpdate | None:
        """The message ended: parse the arguments once. None if the call is unknown or already finished."""
        call = self.calls.get((namespace, call_id))
        if call is None or call.status is not CallStatus.COLLECTING_ARGS:
            return None
        call.lifecycle.to(CallStatus.ARGS_READY)
        text = call.args_text
        try:
            parsed = json.loads(text) if text.strip() else {}
        except ValueError as error:
            parsed, call.error = None, f"arguments are not JSON: {error}"
        if parsed is not None and not isinstance(parsed, dict):
            call.error = f"arguments are a JSON {type(parsed).__name__}, not an object"
        if call.error is None:
            call.args = parsed
        else:
            call.lifecycle.to(CallStatus.FAILED)  # args_ready → failed: never reviewed, never run
        return CallUpdate(call, finished=True)

    def is_finished(self, namespace: Namespace, call_id: str) -> bool:
        call = self.calls.get((namespace, call_id))
        return call is not None and call.status is not CallStatus.COLLECTING_ARGS

    def finished_args(self) -> dict[CallKey, dict[str, Any] | None]:
        return {key: call.args for key, call in self.calls.items()}

    def __iter__(self) -> Iterator[AssembledCall]:
        return iter(self.calls.values())

    def _collecting(self, namespace: Namespace, call_id: str, name: str | None) -> AssembledCall:
        call = self.call(namespace, call_id, name)
        if call.status is not CallStatus.COLLECTING_ARGS:
            # a fragment after the message ended is a protocol error, not something to merge silently
            raise AssemblyError(f"arguments for call {call_id} in namespace {list(namespace)} after it ended")
        return call
