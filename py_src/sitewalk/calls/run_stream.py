"""Read tool calls from a run stream (`POST /threads/{id}/runs/stream`, `messages-tuple`, subgraphs).

Each `messages` event is `[chunk, metadata]`; with `stream_subgraphs` its event name carries the
namespace (`messages|parent:<task>|child:<task>`). A chunk's `tool_call_chunks` are DELTAS with an
`index`; `id` and `name` come only on a call's first fragment, so a later fragment is matched by
(namespace, message id, index). The partial parsed `tool_calls` on chunks are ignored (misleading).
A message a node wrote whole (type `ai`, e.g. in `updates`/`values`) is a SNAPSHOT of its calls.
"""

from __future__ import annotations

from typing import Any

from .assembly import CallAssembler, CallUpdate, Namespace

__all__ = ["RunStreamCalls", "namespace_of"]


def namespace_of(event: str) -> Namespace:
    """`messages|a:1|b:2` → ("a:1", "b:2"); the root graph's `messages` → ()."""
    return tuple(event.split("|")[1:])


class RunStreamCalls:
    def __init__(self, assembler: CallAssembler | None = None) -> None:
        self.assembler = assembler or CallAssembler()
        self._ids: dict[tuple[Namespace, str, int], str] = {}  # (namespace, message id, index) → call id
        self._open: dict[tuple[Namespace, str], list[str]] = {}  # a message's calls, until it ends

    def feed(self, event: str, data: object) -> list[CallUpdate]:
        """One SSE event of the run stream; what it changed (other events are ignored)."""
        namespace = namespace_of(event)
        chunk = data[0] if isinstance(data, (list, tuple)) and data else data
        if not isinstance(chunk, dict):
            return []
        kind = str(chunk.get("type") or "")
        if kind == "ai":
            return self.whole(chunk, namespace)
        if not kind.startswith("AI"):
            return []
        message_id = str(chunk.get("id") or "")
        updates = [u for f in chunk.get("tool_call_chunks") or [] if (u := self._fragment(namespace, message_id, f))]
        if chunk.get("chunk_position") == "last" or (chunk.get("response_metadata") or {}).get("finish_reason"):
            updates.extend(self.end_message(namespace, message_id))
        return updates

    def whole(self, message: dict[str, Any], namespace: Namespace) -> list[CallUpdate]:
        """A whole AI message: each call's arguments as a snapshot (calls already streamed are kept)."""
        updates: list[CallUpdate] = []
        for call in message.get("tool_calls") or []:
            if not isinstance(call, dict) or not call.get("id"):
                continue
            call_id = str(call["id"])
            if self.assembler.is_finished(namespace, call_id):
                continue  # streamed already: this repeats it
            updates.append(self.assembler.snapshot(namespace, call_id, call.get("args") or {}, call.get("name")))
            if (done := self.assembler.finish(namespace, call_id)) is not None:
                updates.append(done)
        return updates

    def end_message(self, namespace: Namespace, message_id: str) -> list[CallUpdate]:
        calls = self._open.pop((namespace, message_id), [])
        return [u for call_id in calls if (u := self.assembler.finish(namespace, call_id)) is not None]

    def end_all(self) -> list[CallUpdate]:
        """The stream ended: every message still open ends with it."""
        return [u for key in list(self._open) for u in self.end_message(*key)]

    def _fragment(self, namespace: Namespace, message_id: str, fragment: object) -> CallUpdate | None:
        if not isinstance(fragment, dict):
            return None
        raw_index = fragment.get("index")
        index = raw_index if isinstance(raw_index, int) else 0
        slot = (namespace, message_id, index)
        call_id = fragment.get("id") or self._ids.get(slot)
        if not call_id:
            return None  # a fragment whose call never announced itself cannot be placed: not guessed
        if slot not in self._ids:
            self._ids[slot] = str(call_id)
            self._open.setdefault((namespace, message_id), []).append(str(call_id))
        return self.assembler.delta(namespace, str(call_id), fragment.get("args") or "", fragment.get("name"))
