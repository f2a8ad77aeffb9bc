"""Bind a timeline's responses to the timeline that asked: a late page never lands in another one.

Every load claims a ticket; claiming a new one (a refresh, or another inspection opened in the same
view) makes the older tickets stale. A page is written only while its ticket is still the current one
(checked on write, after the await), so inspection A's late history page is never drawn in B's timeline.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import StaleResponse

__all__ = ["StaleGuard", "Ticket"]


class StaleGuard:
    def __init__(self) -> None:
        self._generation = 0
        self._owner = ""

    def claim(self, owner: str) -> Ticket:
        """A new ticket for `owner` (a thread id); every ticket claimed before is stale from now on."""
        self._generation += 1
        self._owner = owner
        return Ticket(self, self._generation, owner)

    @property
    def owner(self) -> str:
        """The thread whose timeline the newest ticket is for."""
        return self._owner

    def is_current(self, ticket: Ticket) -> bool:
        return ticket.generation == self._generation and ticket.owner == self._owner


@dataclass(frozen=True, slots=True)
class Ticket:
    guard: StaleGuard
    generation: int
    owner: str

    @property
    def current(self) -> bool:
        return self.guard.is_current(self)

    def check(self) -> None:
        """Raise StaleResponse unless this ticket is still the current one."""
        if not self.current:
            raise StaleResponse(f"a history page of {self.owner} arrived after its timeline was replaced")
