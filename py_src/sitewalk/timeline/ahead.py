"""Which device (headless) tool calls a run from a checkpoint will ask for, known before it starts.

From the checkpoint's state (`get_state` at that checkpoint):
- calls its tasks wait on (a `tool` interrupt with no result yet), and
- when the run goes on and the newest message is the agent's, its calls that no tool message
  answered: the steps after the model carry them to the tools node, which asks the device anew
  (the "Decided to ask for your location" step, a value a fork wrote).
A call whose task at this very checkpoint has a result is not asked again: a replay from it reuses
the task's stored writes. What the model calls when it runs again (a replay from before the model)
cannot be known here: the run finds out; `called_after` says what it called on the branch being
replaced, which a replay most likely asks again (under new call ids).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sitewalk_shared.contracts.headless_wire import parse_headless_interrupt

from .tree import Step

__all__ = ["DeviceCall", "called_after", "device_calls_ahead"]

DeviceCall = tuple[str, str]  # (tool name, tool call id)


def device_calls_ahead(state: Mapping[str, Any], device_tools: Collection[str]) -> list[DeviceCall]:
    """The device tools (names in `device_tools`) a run from this state asks for, in order, each once."""
    tasks = [t for t in state.get("tasks") or [] if isinstance(t, Mapping)]
    messages = [m for m in (state.get("values") or {}).get("messages") or [] if isinstance(m, Mapping)]
    answered = {str(m.get("tool_call_id")) for m in messages if m.get("type") == "tool"}
    for task in tasks:
        answered |= _answered_by(task.get("result"))
    ahead: dict[str, str] = {}
    for task in tasks:
        for item in task.get("interrupts") or []:
            request = parse_headless_interrupt(item.get("value")) if isinstance(item, Mapping) else None
            if request is not None and request.tool_call_id:
                ahead.setdefault(request.tool_call_id, request.name)
    newest = messages[-1] if messages else {}
    if state.get("next") and newest.get("type") == "ai":  # the run goes on to the tools it called
        for call in newest.get("tool_calls") or []:
            if isinstance(call, Mapping) and call.get("id"):
                ahead.setdefault(str(call["id"]), str(call.get("name") or ""))
    return [(name, call_id) for call_id, name in ahead.items() if name in device_tools and call_id not in answered]


def _answered_by(result: object) -> set[str]:
    """Tool call ids a finished task's writes answer (its tool messages)."""
    if not isinstance(result, Mapping):
        return set()
    return {str(m.get("tool_call_id")) for m in result.get("messages") or []
            if isinstance(m, Mapping) and m.get("tool_call_id")}


def called_after(replaced: Sequence[Step], device_tools: Collection[str]) -> list[str]:
    """The device tools the agent called in the steps a replay replaces (its messages after the step),
    oldest first, each once: the model runs again from there and most likely asks them again."""
    called: dict[str, None] = {}
    for step in reversed(replaced):
        last = step.facts.last
        if last is not None and last.type == "ai":
            called.update((name, None) for name, _ in last.calls if name in device_tools)
    return list(called)
