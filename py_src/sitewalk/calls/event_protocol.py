"""Read tool calls from the newer event protocol (`POST /threads/{id}/stream/events`).

Each event is `{"event_id", "seq", "method", "params": {"namespace", "data"}}`. In `messages`:
`message-start` names the message, `content-block-start` with a `tool_call_chunk` opens a call on a
block index, `content-block-delta` with `{"type": "tool-call-delta", "args"}` APPENDS, and
`content-block-finish` with the `tool_call` (or `invalid_tool_call`) REPLACES: it is the finished
block, a snapshot by its event kind. `message-finish` ends the message's calls.

A reconnect sends `since` = the last `seq` taken; the server replays from there and may still repeat
an event, so events are taken once by `seq` / `event_id` (`StreamCursor`), never by their text.
"""

from __future__ import annotations

from typing import Any

from .assembly import CallAssembler, CallUpdate, Namespace, StreamCursor

__all__ = ["EventStreamCalls"]

_CALL_BLOCKS = ("tool_call_chunk", "tool_call", "invalid_tool_call")


class EventStreamCalls:
    def __init__(self, assembler: CallAssembler | None = None) -> None:
        self.assembler = assembler or CallAssembler()
        self.cursor = StreamCursor()
        self._message: dict[Namespace, str] = {}  # the message streaming in each namespace
        self._blocks: dict[tuple[Namespace, str, int], str] = {}  # (namespace, message id, block) → call id
        self._open: dict[tuple[Namespace, str], list[str]] = {}

    @property
    def since(self) -> int | None:
        """What to send as `since` when reconnecting."""
        return self.cursor.last_seq

    def feed(self, event: dict[str, Any]) -> list[CallUpdate]:
        """One decoded event (the SSE `data`); what it changed. A replayed event changes nothing."""
        seq = event.get("seq")
        event_id = event.get("event_id")
        if not self.cursor.take(seq if isinstance(seq, int) else None, str(event_id) if event_id else None):
            return []
        params = event.get("params") or {}
        data = params.get("data")
        if event.get("method") != "messages" or not isinstance(data, dict):
            return []
        namespace = tuple(str(s) for s in params.get("namespace") or [])
        return self._message_event(namespace, data)

    def _message_event(self, namespace: Namespace, data: dict[str, Any]) -> list[CallUpdate]:
        kind = data.get("event")
        if kind == "message-start":
            self._message[namespace] = str(data.get("id") or "")
            return []
        message_id = self._message.get(namespace, "")
        if kind == "message-finish":
            calls = self._open.pop((namespace, message_id), [])
            return [u for c in calls if (u := self.assembler.finish(namespace, c)) is not None]
        index = data.get("index")
        if not isinstance(index, int):
            return []
        slot = (namespace, message_id, index)
        if kind == "content-block-start":
            return self._start(slot, data.get("content"))
        call_id = self._blocks.get(slot)
        if call_id is None:
            return []  # a text block, or a block this stream never saw open
        if kind == "content-block-delta":
            delta = data.get("delta") or {}
            if delta.get("type") == "tool-call-delta":
                return [self.assembler.delta(namespace, call_id, str(delta.get("args") or ""))]
        elif kind == "content-block-finish":
            content = data.get("content") or {}
            if content.get("type") in _CALL_BLOCKS:
                return [self.assembler.snapshot(namespace, call_id, content.get("args") or "", content.get("name"))]
        return []

    def _start(self, slot: tuple[Namespace, str, int], content: object) -> list[CallUpdate]:
        if not isinstance(content, dict) or content.get("type") not in _CALL_BLOCKS or not content.get("id"):
            return []
        namespace, message_id, _ = slot
        call_id = str(content["id"])
        self._blocks[slot] = call_id
        self._open.setdefault((namespace, message_id), []).append(call_id)
        args = content.get("args") or ""
        # a start block carrying arguments is the arguments so far (a snapshot), usually empty
        return [self.assembler.snapshot(namespace, call_id, args, content.get("name"))]
