"""A `Reply` in each provider's documented wire format: the streamed events (Server-Sent Events) and the
one JSON body of a request that did not ask to stream.

OpenAI chat completions: `chat.completion.chunk` events; a tool call's first delta carries its `index`,
`id` and `function.name`, later deltas only `index` and `function.arguments` fragments; parallel calls'
fragments are interleaved by index; `finish_reason` `tool_calls` (else `stop`); a last chunk with `usage`
when `stream_options.include_usage`; then `data: [DONE]`.

Anthropic messages: `message_start`, per content block `content_block_start` (a `tool_use` block with its
`id`, `name` and an empty `input`), `content_block_delta`s (`text_delta` or `input_json_delta` with
`partial_json` fragments), `content_block_stop`; then `message_delta` (`stop_reason` `tool_use` or
`end_turn`, output usage) and `message_stop`.
"""

from __future__ import annotations

import itertools
import json
import uuid
from typing import Any

from provider_standin.script import Reply

__all__ = ["anthropic_body", "anthropic_events", "fragments", "openai_body", "openai_events"]

FRAGMENT = 16  # characters of text or arguments per streamed delta


def fragments(text: str, size: int = FRAGMENT) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _call_ids(reply: Reply, prefix: str) -> list[str]:
    return [f"{prefix}{uuid.uuid4().hex[:24]}" for _ in reply.calls]


def openai_events(reply: Reply, model: str, include_usage: bool) -> list[bytes]:
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk", "created": 1,
            "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in fragments(reply.text)]
    ids = _call_ids(reply, "call_")
    for index, ((name, _), call_id) in enumerate(zip(reply.calls, ids, strict=True)):
        events.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
    pieces = [[(index, p) for p in fragments(json.dumps(args))] for index, (_, args) in enumerate(reply.calls)]
    for index, piece in (p for row in itertools.zip_longest(*pieces) for p in row if p):  # interleaved by index
        events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk({}, "tool_calls" if reply.calls else "stop"))
    if include_usage:
        events.append(_sse({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                             "total_tokens": 15}}))
    return [*events, b"data: [DONE]\n\n"]


def openai_body(reply: Reply, model: str) -> dict[str, Any]:
    calls = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
             for (name, args), call_id in zip(reply.calls, _call_ids(reply, "call_"), strict=True)]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def anthropic_events(reply: Reply, model: str) -> list[bytes]:
    message: dict[str, Any] = {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                               "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
                               "usage": {"input_tokens": 10, "output_tokens": 1}}
    events = [_sse({"type": "message_start", "message": message}, "message_start")]
    index = 0
    if reply.text:
        events.append(_sse({"type": "content_block_start", "index": index,
                            "content_block": {"type": "text", "text": ""}}, "content_block_start"))
        events += [_sse({"type": "content_block_delta", "index": index,
                         "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
                   for piece in fragments(reply.text)]
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    for (name, args), call_id in zip(reply.calls, _call_ids(reply, "toolu_"), strict=True):
        events.append(_sse({"type": "content_block_start", "index": index,
                            "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}},
                           "content_block_start"))
        events += [_sse({"type": "content_block_delta", "index": index,
                         "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta")
                   for piece in fragments(json.dumps(args))]
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    stop = "tool_use" if reply.calls else "end_turn"
    events.append(_sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5}}, "message_delta"))
    return [*events, _sse({"type": "message_stop"}, "message_stop")]


def anthropic_body(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [{"type": "tool_use", "id": call_id, "name": name, "input": args}
                for (name, args), call_id in zip(reply.calls, _call_ids(reply, "toolu_"), strict=True)]
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}
