"""Tool-call arguments assembled per (namespace, call id): one buffer per call, parsed once.

Three operations on a `CallAssembler`: `delta` (append a fragment), `snapshot` (replace the arguments so
far: the event KIND says it is a snapshot, never the text) and `finish` (the message ended: parse once).
Every call has its own buffer, so parallel calls, subgraph namespaces and interleaved fragments never mix.

Work is linear in the stream: a fragment is appended to its call's list (no re-join, no parse per
fragment); the text is joined when a view takes the change (`AssembledCall.take`, once a frame) and
parsed once, when the message ends. `finish` is the one place where a streamed call's arguments become
ready or make the call fail (`args_ready → failed`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sitewalk_shared.errors import SitewalkError

from .lifecycle import CallLifecycle, CallStatus
from .view import CallView

__all__ = ["AssembledCall", "AssemblyError", "CallAssembler", "CallKey", "Namespace"]

Namespace = tuple[str, ...]
CallKey = tuple[Namespace, str]
"""(namespace, call id): the root graph's namespace is ()."""


class AssemblyError(SitewalkError, ValueError):
    """An event that cannot belong to the call it names (e.g. a fragment after the message ended)."""


@dataclass(slots=True, eq=False)  # identity: a call is one call, whatever its text
class AssembledCall:
    namespace: Namespace
    call_id: str
    name: str | None = None
    message_id: str = ""
    index: int = 0
    parts: list[str] = field(default_factory=list)
    args: dict[str, Any] | None = None  # set once the message ended and the text parsed to an object
    error: str | None = None  # why the finished arguments are unusable
    lifecycle: CallLifecycle = field(default_factory=CallLifecycle)
    taken: int = 0  # parts[:taken] were handed to a view
    replaced: bool = False  # a snapshot replaced the parts since the view last took them

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

    def take(self) -> CallView:
        """The call as a view: the text added since the last take (all of it after a snapshot)."""
        replaced, self.replaced = self.replaced, False
        start = 0 if replaced else self.taken
        delta = "".join(self.parts[start:]) if start < len(self.parts) else ""
        self.taken = len(self.parts)
        return CallView(self.call_id, self.name, self.lifecycle.status, self.namespace, self.message_id,
                        self.index, delta, replaced, self.args, self.error)


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

    def delta(self, namespace: Namespace, call_id: str, fragment: str, name: str | None = None) -> CallView:
        """A fragment appended; the call as a view of what it added."""
        call = self._collecting(namespace, call_id, name)
        if fragment:
            call.parts.append(fragment)
        return call.take()

    def snapshot(self, namespace: Namespace, call_id: str, args: str | dict[str, Any],
                 name: str | None = None) -> CallView:
        """The arguments so far, whole: they replace what was collected (a dict is final arguments)."""
        return self.replace(namespace, call_id, args, name).take()

    def replace(self, namespace: Namespace, call_id: str, args: str | dict[str, Any],
                name: str | None = None) -> AssembledCall:
        """`snapshot` without taking the view (the next take hands the whole text on, `replaced`)."""
        call = self._collecting(namespace, call_id, name)
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        call.parts[:] = [text] if text else []
        call.replaced = True
        return call

    def finish(self, namespace: Namespace, call_id: str) -> AssembledCall | None:
        """The message ended: parse the arguments once (ready, or failed with a reason). None if the call is
        unknown or already finished. The one place a streamed call's arguments end."""
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
        return call

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
