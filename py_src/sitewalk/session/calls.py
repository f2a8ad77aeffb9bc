"""Tool calls on the view: their progress, and their end shown once (from the stream or the answer)."""

from __future__ import annotations

import json
from typing import Any

from ..streaming import CallState
from .view import View

__all__ = ["CallBoard", "envelope_detail", "error_summary"]


class CallBoard:
    def __init__(self, view: View) -> None:
        self.view = view
        self.settled: set[str] = set()  # tool calls whose end the view has shown

    def show(self, call_id: str, name: str, state: str, detail: str = "") -> None:
        self.view.tool_call(call_id, name, state, detail)

    def ended(self, call_id: str, name: str, envelope: dict[str, Any]) -> None:
        """This device answered the call with `envelope`."""
        state = CallState.succeeded if envelope.get("ok") else CallState.failed
        self.view.tool_call(call_id, name, state, envelope_detail(envelope))
        self.settled.add(call_id)

    def settle(self, messages: list[Any]) -> None:
        """A tool message in the state is the server's word on how a call ended (shown once)."""
        for message in messages:
            if not isinstance(message, dict) or message.get("type") != "tool":
                continue
            call_id = str(message.get("tool_call_id") or "")
            if not call_id or call_id in self.settled:
                continue
            self.settled.add(call_id)
            failed = message.get("status") == "error"
            detail = error_summary(message.get("content")) if failed else ""
            self.view.tool_call(call_id, str(message.get("name") or "?"),
                                CallState.failed if failed else CallState.succeeded, detail)


def envelope_detail(envelope: dict[str, Any]) -> str:
    """'' for a result, 'code: message' for an error envelope."""
    if envelope.get("ok"):
        return ""
    error = envelope.get("error") or {}
    return f"{error.get('code')}: {error.get('message')}"


def error_summary(content: Any) -> str:
    """'code: message' from a failed tool message's envelope, or its text."""
    try:
        body = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return str(content)[:200]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return f"{body['error'].get('code')}: {body['error'].get('message')}"
    if isinstance(body, dict) and body.get("issues"):
        return ", ".join(sorted({str(i.get("code")) for i in body["issues"] if isinstance(i, dict)}))
    return str(content)[:200]
