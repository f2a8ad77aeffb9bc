"""Device tools a replay will ask whose browser permission this device has denied, known before it starts.

A denied tool with manual entry (`headless.permissions.MANUAL_ENTRY`, e.g. the position) does not stop
the replay: the inspector is told up front that they will be asked to type it. A denied tool without
one would only be declined, so the replay is refused before any run (`ReplayWouldBeDeclined`).
A call this device has answered is not asked again (its recorded answer is sent), so it never counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..timeline import ReplayWouldBeDeclined
from .answers import HeadlessAnswers

__all__ = ["Blocked", "blocked_ahead", "refuse_declined", "typed_notices"]


@dataclass(frozen=True, slots=True)
class Blocked:
    tool: str
    call_id: str  # "" for a call the model will make anew (its id is not known yet)
    permission: str
    typed_instead: str | None  # what the inspector is told, when the answer may be typed; None: declined


async def blocked_ahead(answers: HeadlessAnswers, calls: Iterable[tuple[str, str]]) -> list[Blocked]:
    """The calls among (tool, call id) this device would have to answer under a denied permission."""
    permissions = answers.registry.permissions
    if permissions is None:
        return []
    blocked: list[Blocked] = []
    for tool, call_id in calls:
        if call_id and await answers.answered(call_id):
            continue
        permission = await permissions.denied(tool)
        if permission is not None:
            blocked.append(Blocked(tool, call_id, permission, permissions.typed_instead(tool)))
    return blocked


def refuse_declined(blocked: Iterable[Blocked]) -> None:
    """Raise ReplayWouldBeDeclined for the first known blocked call nothing can be typed for (what the
    model will call anew is only likely, not known: the run finds out, and ends with ReplayDeclined)."""
    for call in blocked:
        if call.typed_instead is None and call.call_id:
            raise ReplayWouldBeDeclined(call.tool, call.call_id, call.permission)


def typed_notices(blocked: Iterable[Blocked]) -> tuple[str, ...]:
    """What the inspector is told up front, once per tool."""
    return tuple(dict.fromkeys(call.typed_instead for call in blocked if call.typed_instead))
