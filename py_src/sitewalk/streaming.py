"""Assemble a run's `messages-tuple` stream: text per message, tool-call arguments per call.

Fragments are keyed by (namespace, message id, chunk index) — never one global string — and the
`id`/`name` that only the first fragment carries are remembered for the rest. The session's view of
a run; `sitewalk.calls` has the protocol-neutral assembly keyed by (namespace, call id) and the
lifecycle whose first two states (`collecting_args`, `args_ready`) are tracked here. The partial parsed
`tool_calls` the server attaches to chunks are ignored (DESIGN: misleading).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .calls.lifecycle import CallStatus


class CallState:
    """The lifecycle's states (`sitewalk.calls.lifecycle.CallStatus`) as this module's callers spell them."""

    collecting_args = CallStatus.COLLECTING_ARGS
    args_ready = CallStatus.ARGS_READY
    running = CallStatus.RUNNING
    succeeded = CallStatus.SUCCEEDED
    failed = CallStatus.FAILED


@dataclass
class ToolCallProgress:
    key: tuple[str, str, int]
    id: str | None = None
    name: str | None = None
    fragments: list[str] = field(default_factory=list)
    state: CallStatus = CallState.collecting_args
    args: dict[str, Any] | None = None

    @property
    def args_text(self) -> str:
        return "".join(self.fragments)

    def try_complete(self) -> bool:
        """Parse the collected text once the stream says the message is done."""
        try:
            parsed = json.loads(self.args_text or "{}")
        except ValueError:
            return False
        if isinstance(parsed, dict):
            self.args = parsed
            self.state = CallState.args_ready
            return True
        return False


@dataclass
class MessageText:
    id: str
    parts: list[str] = field(default_factory=list)
    done: bool = False  # the message's last chunk arrived

    @property
    def text(self) -> str:
        return "".join(self.parts)


class RunAssembler:
    def __init__(self) -> None:
        self.calls: dict[tuple[str, str, int], ToolCallProgress] = {}
        self.texts: dict[str, MessageText] = {}

    def feed(self, data: object, namespace: str = "") -> list[Any]:
        """Feed one messages-tuple payload ([chunk, metadata]); return what changed."""
        chunk = data[0] if isinstance(data, (list, tuple)) and data else data
        if not isinstance(chunk, dict):
            return []
        if chunk.get("type") == "ai":
            return self._whole(chunk, namespace)
        if not str(chunk.get("type", "")).startswith("AI"):
            return []
        message_id = str(chunk.get("id") or "")
        changed: list[object] = []
        text = _text_of(chunk.get("content"))
        if text:
            entry = self.texts.setdefault(message_id, MessageText(message_id))
            entry.parts.append(text)
            changed.append(entry)
        for fragment in chunk.get("tool_call_chunks") or []:
            index = fragment.get("index")
            key = (namespace, message_id, index if isinstance(index, int) else 0)
            call = self.calls.setdefault(key, ToolCallProgress(key))
            call.id = call.id or fragment.get("id")
            call.name = call.name or fragment.get("name")
            if fragment.get("args"):
                call.fragments.append(fragment["args"])
            changed.append(call)
        if chunk.get("chunk_position") == "last" or chunk.get("response_metadata", {}).get("finish_reason"):
            changed.extend(self.finish_message(message_id))
        return changed

    def _whole(self, message: dict[str, Any], namespace: str) -> list[Any]:
        """A message a node wrote whole (not a model's stream), e.g. an action's "Work order ... created.".

        The server sends such a message once, as type `ai`, after the node ends. A message already
        streamed in chunks is not taken again: its words were shown as they came.
        """
        message_id = str(message.get("id") or "")
        if message_id in self.texts or any(key[1] == message_id for key in self.calls):
            return []
        changed: list[object] = []
        text = _text_of(message.get("content"))
        if text:
            entry = self.texts.setdefault(message_id, MessageText(message_id))
            entry.parts.append(text)
        for index, call in enumerate(message.get("tool_calls") or []):
            if isinstance(call, dict):
                key = (namespace, message_id, index)
                self.calls[key] = ToolCallProgress(key, call.get("id"), call.get("name"),
                                                   [json.dumps(call.get("args") or {})])
        changed.extend(self.finish_message(message_id))
        return changed

    def finish_message(self, message_id: str | None = None) -> list[Any]:
        """End one message (or, with None, every message still open): its texts and calls that completed."""
        done: list[object] = []
        for entry in self.texts.values():
            if not entry.done and (message_id is None or entry.id == message_id):
                entry.done = True
                done.append(entry)
        for call in self.calls.values():
            if call.state == CallState.collecting_args and (message_id is None or call.key[1] == message_id):
                if call.try_complete():
                    done.append(call)
        return done

    def call_by_id(self, tool_call_id: str) -> ToolCallProgress | None:
        return next((c for c in self.calls.values() if c.id == tool_call_id), None)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""
