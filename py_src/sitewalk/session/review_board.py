"""The review cards' model (pure): the server's pending reviews, the reviewer's unsent choices, refusals.

The pending reviews always come from the server (`Reviews.refresh`); choices live in this page only
and are never restored after a reload. A choice names the revision and hash of the card it was made
on (the card's own attributes, what the reviewer saw), so a card drawn from older args gives a stale
decision that `check_decisions` refuses. An edit shows its args as revision n+1. A decision the server
refused (`PendingReview.refusal`: the call waits again, e.g. `invalid_edit` on `priority`) is shown on
its card until a new choice on that card replaces it.

An edit comes from the card's form (generated from the tool's JSON Schema, `sitewalk.review_form`) or
from its raw JSON, and is checked with the tool's own contract (`contracts.field_actions.FIELD_ARGS`)
before it is recorded: one that does not fit records nothing (the card stays undecided, so nothing is
sent for it), keeps what was typed and names each wrong field under the editor (`invalid_edit`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sitewalk_shared.contracts.field_actions import FIELD_ARGS

from ..review_form import check_args, form_fields, read_form, schema_of
from ..review_words import call_in_words
from ..timeline.errors import InvalidEdit
from ..typed_value import typed_object
from .refusals import Refused
from .reviews import PendingReview

__all__ = ["ReviewBoard", "SeenRevision"]


@dataclass(frozen=True)
class SeenRevision:
    """The revision a card showed when the reviewer decided (its data attributes)."""

    args_revision: int
    args_hash: str


@dataclass(frozen=True)
class EditDraft:
    """An edit that did not fit: what was typed (the form's inputs, or the raw JSON) and what is wrong."""

    message: str
    fields: dict[str, str]
    form: dict[str, str | bool] | None = None
    json_text: str | None = None


@dataclass
class ReviewBoard:
    pending: dict[str, PendingReview] = field(default_factory=dict)
    choices: dict[str, dict[str, Any]] = field(default_factory=dict)  # interrupt id -> decision, unsent
    refusals: dict[str, tuple[str, str]] = field(default_factory=dict)  # interrupt id -> (code, message)
    drafts: dict[str, EditDraft] = field(default_factory=dict)  # interrupt id -> an edit that did not fit

    def show(self, pending: list[dict[str, Any]]) -> None:
        """The server's pending reviews; choices for reviews no longer pending are dropped."""
        self.pending = {p["interrupt_id"]: PendingReview(**p) for p in pending}
        self.choices = {iid: c for iid, c in self.choices.items() if iid in self.pending}
        self.drafts = {iid: d for iid, d in self.drafts.items() if iid in self.pending}

    def choose(self, iid: str, kind: str, seen: SeenRevision, args_text: str = "", reason: str = "",
               form: Mapping[str, str | bool] | None = None) -> None:
        """Record a choice on a card. An edit ("edit": the `form`'s inputs; "edit-json": `args_text`) that
        does not fit the tool's contract records nothing and is refused (`invalid_edit`)."""
        review = self.pending.get(iid)
        if review is None:
            raise Refused("already_decided", "this review is no longer pending", interrupt_id=iid)
        named = {"args_revision": seen.args_revision, "args_hash": seen.args_hash}
        if kind == "approve":
            self.choices[iid] = {"type": "approve", **named}
        elif kind == "reject":
            self.choices[iid] = {"type": "reject", **named, "message": reason.strip() or "rejected by the reviewer"}
        elif kind in ("edit", "edit-json"):
            args = self._edited(review, form if kind == "edit" else None, args_text)
            self.choices[iid] = {"type": "edit", **named, "edited_action": {"name": review.name, "args": args}}
        else:
            raise Refused("invalid_decision", f"unknown decision {kind!r}", interrupt_id=iid)
        self.refusals.pop(iid, None)
        self.drafts.pop(iid, None)

    def _edited(self, review: PendingReview, form: Mapping[str, str | bool] | None, args_text: str
                ) -> dict[str, Any]:
        """The edited args as the tool's contract takes them; if they do not fit, the choice made before
        is dropped (the reviewer meant to replace it), what was typed is kept, and `invalid_edit` raised."""
        contract = FIELD_ARGS.get(review.name)
        try:
            if form is not None and contract is not None:
                return check_args(review.name, contract, read_form(schema_of(contract), form))
            return typed_object(args_text, "the arguments", review.name, contract)
        except InvalidEdit as wrong:
            self.choices.pop(review.interrupt_id, None)
            self.drafts[review.interrupt_id] = EditDraft(str(wrong), wrong.fields, None if form is None else dict(form),
                                                         None if form is not None else args_text)
            raise Refused("invalid_edit", str(wrong), interrupt_id=review.interrupt_id) from wrong

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
        """What each card shows: the review, the args (in words from the contract, and as JSON) and revision
        (the edit's when edited), choice, refusal."""
        out = []
        for iid, review in self.pending.items():
            choice = self.choices.get(iid)
            edited = choice is not None and choice["type"] == "edit"
            args = choice["edited_action"]["args"] if edited and choice else review.args
            refusal = self.refusals.get(iid)
            server = None if choice else review.refusal  # a new choice on this card replaces the server's refusal
            local = {"code": refusal[0], "message": refusal[1], "field": None} if refusal else None
            shown = json.dumps(args, indent=2, ensure_ascii=False, sort_keys=True)
            out.append({"review": review, "choice": choice, "shown_args": shown,
                        "words": call_in_words(review.name, args),
                        "shown_revision": review.args_revision + (1 if edited else 0),
                        "refusal": local or server,
                        "editor": _editor(review, args, shown, self.drafts.get(iid))})
        return out

    def notices(self) -> list[dict[str, str]]:
        """Refusals of decisions whose review is gone (already decided): shown above the cards."""
        return [{"interrupt_id": iid, "code": code, "message": message}
                for iid, (code, message) in self.refusals.items() if iid not in self.pending]


def _editor(review: PendingReview, args: Mapping[str, object], shown: str, draft: EditDraft | None) -> dict[str, Any]:
    """The card's editor: the form of the tool's contract (none without one), its raw JSON, and what did
    not fit in whichever of the two it was typed (kept as typed)."""
    contract = FIELD_ARGS.get(review.name)
    typed = draft.form if draft is not None else None
    json_text = draft.json_text if draft is not None else None
    fields = [] if contract is None else form_fields(schema_of(contract), args,
                                                     draft.fields if draft and typed else None, typed)
    return {"fields": fields, "json_text": shown if json_text is None else json_text, "open": draft is not None,
            "raw_open": json_text is not None or not fields,
            "form_error": draft.message if draft and typed is not None else "",
            "raw_error": draft.message if draft and json_text is not None else ""}
