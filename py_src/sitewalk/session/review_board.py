"""The review cards' model (pure): the server's pending reviews, the reviewer's unsent choices, refusals.

The pending reviews always come from the server (`Reviews.refresh`); choices live in this page only
and are never restored after a reload. A choice names the revision and hash of the card it was made
on (the card's own attributes, what the reviewer saw), so a card drawn from older args gives a stale
decision that `check_decisions` refuses. An edit shows its args as revision n+1. A decision the server
refused (`PendingReview.refusal`: the call waits again, e.g. `invalid_edit` on `priority`) is shown on
its card until a new choice on that card replaces it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .reviews import PendingReview, ReviewRefused

__all__ = ["ReviewBoard", "SeenRevision"]


@dataclass(frozen=True)
class SeenRevision:
    """The revision a card showed when the reviewer decided (its data attributes)."""

    args_revision: int
    args_hash: str


@dataclass
class ReviewBoard:
    pending: dict[str, PendingReview] = field(default_factory=dict)
    choices: dict[str, dict[str, Any]] = field(default_factory=dict)  # interrupt id -> decision, unsent
    refusals: dict[str, tuple[str, str]] = field(default_factory=dict)  # interrupt id -> (code, message)

    def show(self, pending: list[dict[str, Any]]) -> None:
        """The server's pending reviews; choices for reviews no longer pending are dropped."""
        self.pending = {p["interrupt_id"]: PendingReview(**p) for p in pending}
        self.choices = {iid: c for iid, c in self.choices.items() if iid in self.pending}

    def choose(self, iid: str, kind: str, seen: SeenRevision, args_text: str = "", reason: str = "") -> None:
        """Record a choice on a card; an edit whose text is not a JSON object is refused (`invalid_args`)."""
        review = self.pending.get(iid)
        if review is None:
            raise ReviewRefused(iid, "already_decided", "this review is no longer pending")
        named = {"args_revision": seen.args_revision, "args_hash": seen.args_hash}
        if kind == "approve":
            self.choices[iid] = {"type": "approve", **named}
        elif kind == "reject":
            self.choices[iid] = {"type": "reject", **named, "message": reason.strip() or "rejected by the reviewer"}
        elif kind == "edit":
            self.choices[iid] = {"type": "edit", **named,
                                 "edited_action": {"name": review.name, "args": _json_object(iid, args_text)}}
        else:
            raise ReviewRefused(iid, "invalid_decision", f"unknown decision {kind!r}")
        self.refusals.pop(iid, None)

    def take(self) -> dict[str, dict[str, Any]]:
        """Every decided card, for one resume; the board forgets them (the server's state says what happened)."""
        taken, self.choices = self.choices, {}
        self.refusals = {}
        return taken

    def refuse(self, iid: str, code: str, message: str) -> None:
        self.refusals[iid] = (code, message)

    def hold(self, iid: str, decision: dict[str, Any], message: str) -> None:
        """A decision taken to send but not sent (no sign-in): back on its card, to send again."""
        if iid in self.pending and iid not in self.choices:  # a choice made since is the newer one
            self.choices[iid] = decision
        self.refusals[iid] = ("sign_in_required", message)

    def cards(self) -> list[dict[str, Any]]:
        """What each card shows: the review, the args and revision (the edit's when edited), choice, refusal."""
        out = []
        for iid, review in self.pending.items():
            choice = self.choices.get(iid)
            edited = choice is not None and choice["type"] == "edit"
            args = choice["edited_action"]["args"] if edited and choice else review.args
            refusal = self.refusals.get(iid)
            server = None if choice else review.refusal  # a new choice on this card replaces the server's refusal
            shown = {"code": refusal[0], "message": refusal[1], "field": None} if refusal else server
            out.append({"review": review, "choice": choice,
                        "shown_args": json.dumps(args, indent=2, ensure_ascii=False, sort_keys=True),
                        "shown_revision": review.args_revision + (1 if edited else 0),
                        "refusal": shown})
        return out

    def notices(self) -> list[dict[str, str]]:
        """Refusals of decisions whose review is gone (already decided): shown above the cards."""
        return [{"interrupt_id": iid, "code": code, "message": message}
                for iid, (code, message) in self.refusals.items() if iid not in self.pending]


def _json_object(iid: str, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ReviewRefused(iid, "invalid_decision", f"the arguments are not JSON: {error}") from error
    if not isinstance(value, dict):
        raise ReviewRefused(iid, "invalid_decision", "the arguments must be a JSON object")
    return value
