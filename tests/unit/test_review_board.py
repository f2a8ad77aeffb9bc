"""The review cards' model: server-drawn cards, unsent choices, edits as revision n+1, refusals."""

from __future__ import annotations

import pytest

from sitewalk.session.review_board import ReviewBoard, SeenRevision
from sitewalk.session.reviews import ReviewRefused

A = {"interrupt_id": "int-a", "tool_call_id": "call_a", "name": "create_work_order",
     "args": {"inspection_id": "inspection-42", "subject": "Loose bolt"}, "description": "d",
     "args_revision": 1, "args_hash": "a" * 64}
B = {**A, "interrupt_id": "int-b", "tool_call_id": "call_b", "args": {"inspection_id": "inspection-42",
                                                                      "subject": "Drain"}, "args_hash": "b" * 64}
SEEN_A = SeenRevision(1, "a" * 64)


def test_choices_name_the_card_revision_and_only_decided_cards_are_taken() -> None:
    board = ReviewBoard()
    board.show([A, B])
    board.choose("int-a", "approve", SEEN_A)
    assert board.take() == {"int-a": {"type": "approve", "args_revision": 1, "args_hash": "a" * 64}}
    assert board.take() == {}  # sent once


def test_an_edit_is_shown_as_the_next_revision_with_its_args() -> None:
    board = ReviewBoard()
    board.show([A])
    board.choose("int-a", "edit", SEEN_A, args_text='{"inspection_id": "inspection-42", "subject": "New"}')
    [card] = board.cards()
    assert card["shown_revision"] == 2 and '"New"' in card["shown_args"]
    assert board.take()["int-a"]["edited_action"] == {"name": "create_work_order",
                                                      "args": {"inspection_id": "inspection-42", "subject": "New"}}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_an_edit_that_is_not_a_json_object_is_refused_and_records_nothing(text: str) -> None:
    board = ReviewBoard()
    board.show([A])
    with pytest.raises(ReviewRefused) as refused:
        board.choose("int-a", "edit", SEEN_A, args_text=text)
    assert refused.value.code == "invalid_decision" and board.choices == {}


def test_cards_come_from_the_server_and_a_review_gone_drops_its_choice() -> None:
    board = ReviewBoard()
    board.show([A, B])
    board.choose("int-a", "approve", SEEN_A)
    board.show([B])  # the server no longer waits on A
    assert [c["review"].interrupt_id for c in board.cards()] == ["int-b"] and board.choices == {}
    with pytest.raises(ReviewRefused):
        board.choose("int-a", "approve", SEEN_A)


def test_a_refusal_of_a_review_gone_is_a_notice() -> None:
    board = ReviewBoard()
    board.show([B])
    board.refuse("int-a", "already_decided", "no longer pending")
    board.refuse("int-b", "stale_revision", "other args")
    assert [n["interrupt_id"] for n in board.notices()] == ["int-a"]
    assert board.cards()[0]["refusal"] == {"code": "stale_revision", "message": "other args", "field": None}


def test_a_refusal_by_the_server_is_on_its_card_with_the_field_until_a_new_choice() -> None:
    from sitewalk.ui.render import render_template

    refused = {**A, "refusal": {"code": "invalid_edit", "field": "priority", "message": "not one of low|urgent"}}
    board = ReviewBoard()
    board.show([refused, B])
    html = render_template("review_card.j2", card=board.cards()[0])
    assert 'data-code="invalid_edit"' in html and 'data-field="priority"' in html and "not one of" in html
    assert board.cards()[1]["refusal"] is None
    board.choose("int-a", "approve", SEEN_A)
    assert board.cards()[0]["refusal"] is None  # the new choice replaces it
