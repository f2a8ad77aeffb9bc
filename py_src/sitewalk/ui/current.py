"""Which spec is current: decided by message order, tool name, call id and revision.

Never "the first tool call of some message": a message may carry several render_ui calls
(the later one wins), a call may be revised (a higher revision of the same call wins), the
server may send again a spec already shown (same call, same revision: not new), and a late
copy of an older message must not take the screen back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sitewalk_shared.ui_spec.model import INLINE_SPEC, RENDER_UI_TOOL

__all__ = ["CurrentSpec", "SPEC_SOURCES", "SpecCandidate", "pick_current"]

SPEC_SOURCES = (RENDER_UI_TOOL, INLINE_SPEC)  # a render_ui call, or patch lines in a message's text


@dataclass(frozen=True)
class SpecCandidate:
    """One spec seen in a run.

    message_index: the message's position in the thread (or order of first appearance in the
    stream); call_index: the call's position among the message's tool calls.
    """

    message_index: int
    call_index: int
    tool_name: str
    tool_call_id: str
    revision: int = 0
    message_id: str | None = None

    def identity(self) -> dict[str, object]:
        return {"message_id": self.message_id, "tool_call_id": self.tool_call_id, "revision": self.revision}


class CurrentSpec:
    """Offer candidates in any order; `current` is the one to show."""

    def __init__(self, tool_names: Iterable[str] = SPEC_SOURCES) -> None:
        self.tool_names = frozenset(tool_names)
        self.current: SpecCandidate | None = None
        self._position: dict[str, tuple[int, int]] = {}  # call id -> where it was first seen

    def offer(self, candidate: SpecCandidate) -> bool:
        """True when the candidate becomes current (the caller then shows it)."""
        if candidate.tool_name not in self.tool_names or not candidate.tool_call_id:
            return False
        position = self._position.setdefault(candidate.tool_call_id,
                                             (candidate.message_index, candidate.call_index))
        if self.current is None or self._key(position, candidate) > self._key(
                self._position[self.current.tool_call_id], self.current):
            self.current = candidate
            return True
        return False

    def is_current(self, tool_call_id: str, revision: int = 0) -> bool:
        return (self.current is not None and self.current.tool_call_id == tool_call_id
                and self.current.revision == revision)

    @staticmethod
    def _key(position: tuple[int, int], candidate: SpecCandidate) -> tuple[int, int, int]:
        return (position[0], position[1], candidate.revision)


def pick_current(candidates: Iterable[SpecCandidate],
                 tool_names: Iterable[str] = SPEC_SOURCES) -> SpecCandidate | None:
    """The current spec among all candidates, whatever order they arrived in."""
    tracker = CurrentSpec(tool_names)
    for candidate in candidates:
        tracker.offer(candidate)
    return tracker.current
