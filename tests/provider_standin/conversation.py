"""A provider's request body, read into one shape both scripts understand: the first user text, the tools
offered, and the tool results sent since the model last spoke (with the names of the calls they answer)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Conversation", "ToolResult", "from_anthropic", "from_openai"]


@dataclass(frozen=True)
class ToolResult:
    name: str
    content: str

    @property
    def envelope(self) -> dict[str, Any]:
        """The content as JSON (Sitewalk's tools answer JSON), or {} when it is not JSON."""
        try:
            value = json.loads(self.content)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Conversation:
    first_user_text: str
    tools_offered: list[str]
    latest_results: list[ToolResult] = field(default_factory=list)
    model_turns: int = 0  # how many times the model has spoken already


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def from_openai(body: dict[str, Any]) -> Conversation:
    """Chat completions: `messages` with roles; a tool result is a `tool` message naming its `tool_call_id`."""
    messages = body.get("messages", [])
    names: dict[str, str] = {}
    latest: list[ToolResult] = []
    turns = 0
    for m in messages:
        if m.get("role") == "assistant":
            turns += 1
            latest = []
            for call in m.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
        elif m.get("role") == "tool":
            latest.append(ToolResult(names.get(m.get("tool_call_id", ""), "?"), _text_of(m.get("content"))))
    first = next((_text_of(m.get("content")) for m in messages if m.get("role") == "user"), "")
    offered = [t["function"]["name"] for t in body.get("tools", [])]
    return Conversation(first, offered, latest, turns)


def from_anthropic(body: dict[str, Any]) -> Conversation:
    """Messages: an assistant turn's content is a list of blocks (`tool_use`); results come back as
    `tool_result` blocks in a user message, each naming its `tool_use_id`."""
    messages = body.get("messages", [])
    names: dict[str, str] = {}
    latest: list[ToolResult] = []
    turns = 0
    for m in messages:
        blocks = m.get("content") if isinstance(m.get("content"), list) else []
        if m.get("role") == "assistant":
            turns += 1
            latest = []
            names.update({b["id"]: b["name"] for b in blocks if b.get("type") == "tool_use"})
        for b in blocks:
            if b.get("type") == "tool_result":
                latest.append(ToolResult(names.get(b.get("tool_use_id", ""), "?"), _text_of(b.get("content"))))
    first = next((_text_of(m.get("content")) for m in messages if m.get("role") == "user"), "")
    offered = [t["name"] for t in body.get("tools", [])]
    return Conversation(first, offered, latest, turns)
