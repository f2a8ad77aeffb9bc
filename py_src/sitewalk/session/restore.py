"""A thread's view rebuilt from the server's state: after a reload, when an inspection is reopened, and
before a time-travel run (`redraw_view`: from the state the run starts from, so the page shows the branch
that becomes live, not the old one with the new run's messages after it).

The server's state is the whole story: the transcript from `values.messages` (the inspector's words,
the agent's prose without its inline patch lines), the tool calls and their ends, the screen on
record (`ui_spec`), and the questions still pending. Nothing is run again.
"""

from __future__ import annotations

from sitewalk_shared.ui_spec.inline import split_inline

from ..agentserver.client import pending_interrupts
from ..agentserver.schema import Interrupt, ThreadState
from ..calls.lifecycle import CallStatus
from .conversation import show_user_text
from .stream import RunStream
from .view import View

__all__ = ["redraw_view", "restore_view", "transcript"]


def transcript(messages: list[object]) -> list[tuple[str, str, str]]:
    """(who, message id, text) for each message worth a line: who is 'you' or 'agent'.

    Tool messages and the server's own notices (a refused screen) are left out; an agent message
    that only wrote patch lines has no prose and no line."""
    lines: list[tuple[str, str, str]] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("name") == "sitewalk_ui":
            continue
        kind = message.get("type")
        message_id = str(message.get("id") or f"restored-{index}")
        text = _text(message.get("content"))
        if kind == "human" and text.strip():
            lines.append(("you", message_id, text))
        elif kind == "ai":
            prose = split_inline(text)[0].strip()
            if prose:
                lines.append(("agent", message_id, prose))
    return lines


def restore_view(state: ThreadState, view: View, stream: RunStream) -> list[Interrupt]:
    """Show what the state says; return the interrupts still pending (the caller answers or shows them)."""
    values = state.get("values") or {}
    for who, message_id, text in transcript(values.get("messages") or []):
        if who == "you":
            show_user_text(view, message_id, text)
        else:
            view.agent_text(message_id, text)
    pending = pending_interrupts(state)
    for interrupt in pending:  # a tool call still waiting shows as such until it is answered
        call = (interrupt["value"] or {}).get("tool_call") if isinstance(interrupt["value"], dict) else None
        if isinstance(call, dict) and call.get("id"):
            stream.calls.show(str(call["id"]), str(call.get("name") or "?"), CallStatus.RUNNING)
    stream.show_state(state)  # the calls that ended, and the screen on record
    return pending


def redraw_view(state: ThreadState, view: View, stream: RunStream) -> list[Interrupt]:
    """The live view drawn anew from `state` (a time-travel run's starting point): what was shown of another
    branch goes, and so does what the stream knew of it, so the run streamed on top shows its own messages
    once and drops none as already shown. Returns the interrupts pending in `state`, as `restore_view`."""
    view.clear_live()
    stream.forget()
    return restore_view(state, view, stream)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content
                       if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
    return ""
