"""`Refused`: something the inspector asked for that was not done (nothing was sent or changed), with a
typed `code`, the reason, and where it applies: the question or review it answers (`interrupt_id`)
and, for an edit, the field at fault. Answers, review decisions and stuck-run choices all refuse so."""

from __future__ import annotations

from sitewalk_shared.errors import SitewalkError

__all__ = ["Refused"]


class Refused(SitewalkError, ValueError):
    def __init__(self, code: str, message: str, *, interrupt_id: str | None = None, field: str | None = None) -> None:
        super().__init__(f"{code}: {field + ': ' if field else ''}{message}")
        self.code, self.message, self.interrupt_id, self.field = code, message, interrupt_id, field
