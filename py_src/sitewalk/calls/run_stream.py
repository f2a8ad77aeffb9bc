"""The one reader of a run's `messages` stream: each event assembled once, into text per message and
arguments per call (`POST /threads/{id}/runs/stream`, `messages-tuple`, subgraphs).

Each `messages` event is `[chunk, metadata]`; with `stream_subgraphs` its event name carries the
namespace (`messages|parent:<task>|child:<task>`). A chunk's `tool_call_chunks` are DELTAS with an
`index`; `id` and `name` come only on a call's first fragment, so a later fragment is matched by
(namespace, message id, index). The partial parsed `tool_calls` on chunks are ignored (misleading).
A message a node wrote whole (type `ai`, sent once after the node ends) is a SNAPSHOT of its text and
calls; one already streamed is not taken again (its words were shown as they came).

Coalesced: `feed` only keeps the event (it is the pending list's own append, so that keeping an event,
which the session does once an event, costs no Python call); `take` assembles what
came since the last take in one pass and hands back one read-only view (`calls.view`) per call or message
it changed, its `delta` being all the text added since. The session takes once an animation frame while a
stream comes, so the cost of a fragment is one list append plus its share of that pass, never a re-join
or a parse (the arguments are parsed once, when their message ends: `CallAssembler.finish`).
The pass has a fast path for the event that makes up nearly all of a stream of arguments: one more
fragment (index and args) of a named call, in the message and namespace of the event before, with no
words and not ending its message. It is checked field by field in `_assemble`'s loop and appended there;
any other event (and any event whose chunk lacks a key) goes to `_read`, the general path, unchanged
(tests/unit/test_calls_fast_path.py reads each such shape both ways).
Hand-written: no library reads LangGraph's `messages-tuple` chunks, and the JSON is parsed by `json`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .assembly import AssembledCall, CallAssembler, Namespace
from .lifecycle import CallStatus
from .view import CallView, TextView

__all__ = ["RunStreamCalls", "StreamEvent", "namespace_of"]

_UNSEEN = object()  # no event's name or message id: the first event of a take always finds its message


def namespace_of(event: str) -> Namespace:
    """`messages|a:1|b:2` → ("a:1", "b:2"); the root graph's `messages` → ()."""
    return tuple(event.split("|")[1:])


class _Message:
    """One AI message as it streams: its text parts and its calls by index."""

    __slots__ = ("namespace", "id", "parts", "taken", "done", "slots")

    def __init__(self, namespace: Namespace, message_id: str) -> None:
        self.namespace = namespace
        self.id = message_id
        self.parts: list[str] = []
        self.taken = 0  # parts[:taken] were handed to a view
        self.done = False  # its last chunk arrived (or the stream ended)
        self.slots: dict[int, AssembledCall] = {}  # index → call

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def take(self) -> TextView:
        delta = "".join(self.parts[self.taken:]) if self.taken < len(self.parts) else ""
        self.taken = len(self.parts)
        return TextView(self.id, delta, self.done)


class StreamEvent(Protocol):
    """One event of the run stream as the client hands it on (`agentserver.client.StreamPart`)."""

    @property
    def event(self) -> str: ...  # `messages`, or `messages|<namespace>` for a subgraph's

    @property
    def data(self) -> object: ...  # `[chunk, metadata]`, parsed


class RunStreamCalls:
    def __init__(self) -> None:
        self.assembler = CallAssembler()
        self.messages: dict[tuple[Namespace, str], _Message] = {}
        self._pending: list[StreamEvent] = []
        self._touched: dict[_Message | AssembledCall, None] = {}  # changed since the last take, in order
        self._namespaces: dict[str, Namespace] = {}
        self._seen: tuple[object, object, _Message | None] = (_UNSEEN, _UNSEEN, None)
        self.feed: Callable[[StreamEvent], None] = self._pending.append
        """One `messages` event of the run stream, kept for the next `take` (the list's own append: the
        session calls it once an event, so it costs no Python call)."""

    def take(self) -> list[CallView | TextView]:
        """What the events fed since the last take changed: one view per message (if it has words) or call,
        in the order they were first changed."""
        self._assemble()
        return self._views()

    def end_all(self) -> list[CallView | TextView]:
        """The stream ended: every message still open ends with it; what that (and anything not yet taken)
        changed."""
        self._assemble()
        for message in self.messages.values():
            if not message.done:
                self._end(message)
        return self._views()

    def text_of(self, namespace: Namespace, message_id: str) -> str:
        message = self.messages.get((namespace, message_id))
        return message.text if message else ""

    # -----------------------------------------------------------------------------------------

    def _views(self) -> list[CallView | TextView]:
        touched, self._touched = self._touched, {}
        return [entry.take() for entry in touched if isinstance(entry, AssembledCall) or entry.parts]

    def _assemble(self) -> None:
        """Every event fed since the last take, in one loop. The common event (one more fragment of a call
        already named, in the message the event before was part of: no words, not its end) is appended to
        its call right here; any other goes to `_read`, the general path (so does an event whose chunk or
        fragment lacks a key, or is no dict). The checks are ordered so that a text or end chunk leaves
        at its first difference, without an exception."""
        pending = self._pending
        if not pending:
            return
        batch = pending[:]  # the list stays: `feed` is its append
        pending.clear()
        touched = self._touched
        self._seen = (_UNSEEN, _UNSEEN, None)
        event_seen: object = _UNSEEN
        id_seen: object = _UNSEEN
        slots: dict[int, AssembledCall] = {}  # the open message's calls by index (none once it ended)
        named: dict[int, list[str]] = {}  # of those, the named ones touched in this take: index → parts
        for part in batch:
            event, data = part.event, part.data
            try:
                chunk = data[0]  # type: ignore[index]  # anything else goes to _read
                if (event == event_seen and chunk["type"] == "AIMessageChunk" and chunk["id"] == id_seen
                        and not chunk["content"] and chunk["chunk_position"] is None
                        and ("response_metadata" not in chunk or not chunk["response_metadata"])):
                    (fragment,) = chunk["tool_call_chunks"]
                    index = fragment["index"]
                    if index.__class__ is int:
                        args = fragment["args"]
                        parts = named.get(index)
                        if parts is None:
                            call = slots[index]
                            if call.name is None:  # a later fragment may name it: _read
                                raise KeyError(index)
                            touched[call] = None
                            parts = named[index] = call.parts
                        if args:
                            parts.append(args)
                        continue
            except (KeyError, TypeError, IndexError, ValueError):
                pass
            self._read(event, data)
            event_seen, id_seen, message = self._seen
            slots = message.slots if message is not None and not message.done else {}
            named = {}

    def _read(self, event: str, data: object) -> None:
        """One event, whatever its shape: the common chunk (a dict with all its keys, as LangGraph sends
        them) is read by subscript, any other by `_fields`; its fragments go to `_fragments`, and the rare
        cases (a new message, words, a message's end, a whole message) to helpers of their own. `_seen` is
        the (event, message id, message) of the last chunk read."""
        try:
            chunk = data[0]  # type: ignore[index]  # anything else is read by _fields
            kind, raw_id, content, fragments, position = (
                chunk["type"], chunk["id"], chunk["content"], chunk["tool_call_chunks"], chunk["chunk_position"])
        except (KeyError, TypeError, IndexError):
            chunk, (kind, raw_id, content, fragments, position) = _fields(data)
        if kind != "AIMessageChunk" and not self._is_chunk(kind, chunk, event):
            return
        last_event, last_id, message = self._seen
        if message is None or raw_id != last_id or event != last_event:
            message = self._message(event, raw_id)
            self._seen = (event, raw_id, message)
        if content:
            self._words(message, content)
        if fragments and not message.done:  # a fragment after its message ended is not merged
            self._fragments(message, fragments, self._touched)
        if position == "last" or chunk.get("response_metadata"):
            self._maybe_end(message, position, chunk)

    def _fragments(self, message: _Message, fragments: list[dict[str, Any]],
                   touched: dict[_Message | AssembledCall, None]) -> None:
        """A chunk's call fragments, each appended to its call (found by index; opened by its first). A
        fragment that is no dict cannot be placed: it is passed over (so is each item of a string or dict
        sent where the list belongs)."""
        slots = message.slots
        for fragment in fragments:
            if fragment.__class__ is not dict:
                continue
            index = fragment.get("index")
            call = slots.get(index if index.__class__ is int else 0) or self._open(message, fragment)
            if call is None:
                continue
            if call.name is None and fragment.get("name"):
                call.name = fragment["name"]
            args = fragment.get("args")
            if args:
                call.parts.append(args)
            touched[call] = None

    def _is_chunk(self, kind: object, chunk: object, event: str) -> bool:
        """A chunk of another type: a whole AI message is taken at once (not a chunk); other AI types are
        read as chunks; anything else is not this reader's."""
        if kind == "ai" and isinstance(chunk, dict):
            self._whole(chunk, self._namespace(event))
            return False
        return str(kind or "").startswith("AI")

    def _message(self, event: str, raw_id: object) -> _Message:
        key = (self._namespace(event), str(raw_id or ""))
        message = self.messages.get(key)
        if message is None:
            message = self.messages[key] = _Message(*key)
        return message

    def _words(self, message: _Message, content: object) -> None:
        text = content if content.__class__ is str else _text_of(content)
        if text:
            message.parts.append(text)
            self._touched[message] = None

    def _maybe_end(self, message: _Message, position: object, chunk: Mapping[str, object]) -> None:
        """The chunk ends its message if it is the last (`chunk_position`) or says why the model stopped."""
        meta = chunk.get("response_metadata")
        if position == "last" or (isinstance(meta, dict) and meta.get("finish_reason")):
            if not message.done:
                self._end(message)

    def _namespace(self, event: str) -> Namespace:
        found = self._namespaces.get(event)
        if found is None:
            found = self._namespaces[event] = namespace_of(event)
        return found

    def _open(self, message: _Message, fragment: Any) -> AssembledCall | None:
        """A call's first fragment: it must name the call (a fragment whose call never announced itself
        cannot be placed: not guessed)."""
        if not isinstance(fragment, dict) or not fragment.get("id"):
            return None
        call = self.assembler.call(message.namespace, str(fragment["id"]), fragment.get("name"))
        if call.status is not CallStatus.COLLECTING_ARGS:
            return None  # finished already (a whole message took it): not merged
        raw_index = fragment.get("index")
        call.message_id, call.index = message.id, raw_index if isinstance(raw_index, int) else 0
        message.slots[call.index] = call
        return call

    def _end(self, message: _Message) -> None:
        message.done = True
        self._touched[message] = None
        for call in message.slots.values():
            if self.assembler.finish(call.namespace, call.call_id) is not None:
                self._touched[call] = None

    def _whole(self, chunk: dict[str, Any], namespace: Namespace) -> None:
        """A whole AI message: its text, finished, and each call's arguments as a snapshot (a message
        already streamed is not taken again, nor a call already finished)."""
        message_id = str(chunk.get("id") or "")
        if (namespace, message_id) in self.messages:
            return
        message = self.messages[(namespace, message_id)] = _Message(namespace, message_id)
        text = _text_of(chunk.get("content"))
        if text:
            message.parts.append(text)
        for index, raw in enumerate(chunk.get("tool_calls") or []):
            if not isinstance(raw, dict) or not raw.get("id"):
                continue
            call_id = str(raw["id"])
            if self.assembler.is_finished(namespace, call_id):
                continue  # streamed already: this repeats it
            call = self.assembler.replace(namespace, call_id, raw.get("args") or {}, raw.get("name"))
            call.message_id, call.index = message_id, index
            message.slots[index] = call
        self._end(message)


def _fields(data: object) -> tuple[object, tuple[object, object, object, list[dict[str, Any]] | None, object]]:
    """The chunk of an event (`[chunk, metadata]`, or the chunk alone) and its fields read one by one, any
    of them absent (all None if it is no dict)."""
    chunk = data[0] if data.__class__ is list and data else data
    if chunk.__class__ is not dict:
        return chunk, (None, None, None, None, None)
    get = chunk.get
    return chunk, (get("type"), get("id"), get("content"), get("tool_call_chunks"), get("chunk_position"))


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""
