"""A tool message's content as both sides read it: the tool's own response, and the call a reviewer edited.

When a reviewer edits a gated call, LangChain's `HumanInTheLoopMiddleware` puts a notice before the tool's
response in the tool message:

    Note: a human reviewer replaced this tool call before it ran. ... Executed instead: NAME with
    arguments {...}.

    Tool response:
    {"ok": true, ...}

That call RAN, with the edited arguments: the notice is not a refusal. `read_tool_result` splits it off,
so every reader (the scripted agent, the call board, the audit trail, the timeline) reads the envelope
and knows what ran. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

__all__ = ["EDIT_NOTICE_START", "REJECTED_BY_REVIEWER", "ToolResult", "read_tool_result", "rejection",
           "tool_envelope"]

EDIT_NOTICE_START = "Note: a human reviewer replaced this tool call"  # how LangChain starts the notice
_EXECUTED = " Executed instead: "
_WITH_ARGS = " with arguments "
_RESPONSE = "Tool response:"


class ExecutedCall(TypedDict):
    """The edited call that ran, as LangChain's edit notice names it."""

    name: str
    args: dict[str, object]


@dataclass(frozen=True)
class ToolResult:
    """`body`: the tool's own response text; `executed`: `{"name", "args"}` of the edited call that ran, or None."""

    body: str
    executed: ExecutedCall | None = None

    @property
    def edited(self) -> bool:
        return self.executed is not None


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks: strings or {"type": "text", "text": ...}
        return "\n".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                         if isinstance(b, (str, Mapping)))
    return "" if content is None else str(content)


def read_tool_result(content: object) -> ToolResult:
    """The tool's response and, for an edited call, what ran (see the module docstring)."""
    text = _text(content)
    if not text.startswith(EDIT_NOTICE_START):
        return ToolResult(text)
    head, _, body = text.partition(_RESPONSE)
    return ToolResult(body.strip(), _executed(head))


def _executed(notice: str) -> ExecutedCall | None:
    _, found, rest = notice.partition(_EXECUTED)
    name, found_args, args_text = rest.partition(_WITH_ARGS)
    if not found or not found_args:
        return None
    try:
        args, _ = json.JSONDecoder().raw_decode(args_text)
    except ValueError:
        return None
    return {"name": name.strip(), "args": args} if isinstance(args, dict) else None


def tool_envelope(content: object) -> dict[str, object] | None:
    """The JSON object the tool answered (after any edit notice), or None when it is not one."""
    try:
        body = json.loads(read_tool_result(content).body)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


REJECTED_BY_REVIEWER = "rejected_by_reviewer"
"""The key the agent sets in a rejected call's tool message artifact (`{"rejected_by_reviewer": true,
"reason": ...}`, `sitewalk_agent.review`): that call did not run, a person decided so."""


def rejection(message: Mapping[str, object]) -> str | None:
    """For a tool message (a dict, as the state holds it) of a call the reviewer rejected: the reviewer's
    reason ("" when none was given). None for any other message. Also knows LangChain's own mark on a
    rejection (`lc_data.decision`), for threads from before the artifact said so."""
    artifact = message.get("artifact")
    if isinstance(artifact, Mapping) and artifact.get(REJECTED_BY_REVIEWER) is True:
        reason = artifact.get("reason")
        return reason if isinstance(reason, str) else ""
    kwargs = message.get("additional_kwargs")
    marked = kwargs.get("lc_data") if isinstance(kwargs, Mapping) else None
    if message.get("status") == "error" and isinstance(marked, Mapping) and marked.get("decision") == "reject":
        return ""
    return None
