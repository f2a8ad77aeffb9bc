"""A timeline step's details, read-only: what the agent knew (messages, that moment's screen re-rendered
inert), what came next, who and when; for a site-walk step, the answers it held and the question next."""

from __future__ import annotations

import json
from typing import Any

from sitewalk_shared.ui_spec.validate import validate_spec

from ...base.trusted import TemplateHtml
from ...timeline import Step
from ...ui.render import render_spec, render_template

__all__ = ["details_html", "nested_details_html"]


def details_html(step: Step, state: dict[str, Any]) -> TemplateHtml:
    """A step, read-only: what the agent knew (messages, that moment's screen), what came next, who and when."""
    values = state.get("values") or {}
    messages = [{"type": m.get("type"), "who": _who(m), "text": _text(m)} for m in values.get("messages") or []]
    spec = values.get("ui_spec")
    screen = ""
    if isinstance(spec, dict) and spec.get("root"):
        bare = {"root": spec["root"], "elements": spec.get("elements")}  # without the server's identity
        screen = "" if validate_spec(bare) else render_spec(bare)
    interrupts = [f"{i.kind}: {i.tool_name or ''} {i.tool_call_id}".strip() for i in step.facts.interrupts]
    return render_template("timeline_step.j2", step=step, messages=messages, screen_html=screen,
                           revision=step.facts.spec_revision, next=list(state.get("next") or []),
                           interrupts=interrupts)


def nested_details_html(step: Step) -> TemplateHtml:
    """A site-walk step, read-only: the answers it held, the question it was about to ask, who and when."""
    interrupts = [f"{i.kind}: {i.question}" for i in step.facts.interrupts]
    return render_template("timeline_step.j2", step=step, messages=[], answers=list(step.facts.answers),
                           screen_html="", revision=None, next=list(step.facts.next), interrupts=interrupts)


def _who(message: dict[str, Any]) -> str:
    return {"human": "You:", "ai": "Agent:", "tool": f"{message.get('name') or 'tool'} →"}.get(
        str(message.get("type")), f"{message.get('type')}:")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content)
    calls = ", ".join(str(c.get("name")) for c in message.get("tool_calls") or [])
    return (text[:400] + ("…" if len(text) > 400 else "")) + (f" [calls {calls}]" if calls else "")
