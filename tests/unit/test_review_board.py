"""The review cards' model: server-drawn cards, unsent choices, edits as revision n+1, refusals."""

from __future__ import annotations

import pytest

from sitewalk.session.refusals import Refused
from sitewalk.session.review_board import ReviewBoard, SeenRevision

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
    assert board.take()["int-a"]["edited_action"] == {  # as the contract takes them: its default is explicit
        "name": "create_work_order", "args": {"inspection_id": "inspection-42", "subject": "New", "priority": "normal"}}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_an_edit_that_is_not_a_json_object_is_refused_and_records_nothing(text: str) -> None:
    board = ReviewBoard()
    board.show([A])
    with pytest.raises(Refused) as refused:
        board.choose("int-a", "edit-json", SEEN_A, args_text=text)
    assert refused.value.code == "invalid_edit" and board.choices == {}


def test_an_edit_from_the_form_is_typed_by_the_contract() -> None:
    board = ReviewBoard()
    board.show([A])
    typed = {"inspection_id": "inspection-42", "subject": "Bolt", "priority": "urgent"}
    board.choose("int-a", "edit", SEEN_A, form=typed)
    assert board.take()["int-a"]["edited_action"]["args"] == {"inspection_id": "inspection-42", "subject": "Bolt",
                                                              "priority": "urgent"}


def test_an_edit_outside_the_contract_records_nothing_keeps_what_was_typed_and_names_the_field() -> None:
    board = ReviewBoard()
    board.show([A])
    board.choose("int-a", "approve", SEEN_A)  # decided before; the edit meant to replace it
    typed = '{"inspection_id": "inspection-42", "subject": "Bolt", "priority": "medium"}'
    with pytest.raises(Refused) as refused:
        board.choose("int-a", "edit-json", SEEN_A, args_text=typed)
    assert refused.value.code == "invalid_edit" and "priority: must be one of low, normal, high, urgent" in \
        refused.value.message
    assert board.take() == {}  # nothing is sent for it, not even the approval it replaced
    editor = board.cards()[0]["editor"]
    assert editor["json_text"] == typed and editor["raw_open"] and "priority" in editor["raw_error"]


def test_a_form_edit_that_does_not_fit_is_named_under_its_field_until_a_good_one_replaces_it() -> None:
    board = ReviewBoard()
    board.show([A])
    with pytest.raises(Refused):
        board.choose("int-a", "edit", SEEN_A, form={"inspection_id": "inspection-42", "subject": "", "priority": "low"})
    fields = {f.name: f for f in board.cards()[0]["editor"]["fields"]}
    assert fields["subject"].error and fields["subject"].value == "" and fields["priority"].value == "low"
    assert not fields["priority"].error and board.choices == {}
    board.choose("int-a", "edit", SEEN_A, form={"inspection_id": "inspection-42", "subject": "Bolt", "priority": "low"})
    editor = board.cards()[0]["editor"]
    assert not editor["form_error"] and not any(f.error for f in editor["fields"])
    assert [f.value for f in editor["fields"]] == ["inspection-42", "Bolt", "low"]  # the form shows the edit


def test_cards_come_from_the_server_and_a_review_gone_drops_its_choice() -> None:
    board = ReviewBoard()
    board.show([A, B])
    board.choose("int-a", "approve", SEEN_A)
    board.show([B])  # the server no longer waits on A
    assert [c["review"].interrupt_id for c in board.cards()] == ["int-b"] and board.choices == {}
    with pytest.raises(Refused):
        board.choose("int-a", "approve", SEEN_A)


def test_a_refusal_of_a_review_gone_is_a_notice() -> None:
    board = ReviewBoard()
    board.show([B])
    board.refuse("int-a", "already_decided", "no longer pending")
    board.refuse("int-b", "stale_revision", "other args")
    assert [n["interrupt_id"] for n in board.notices()] == ["int-a"]
    assert board.cards()[0]["refusal"] == {"code": "stale_revision", "message": "other args", "field": None}


def test_the_card_draws_the_form_a_choice_list_of_the_contract_only_and_the_raw_json_folded_away() -> None:
    import re

    from sitewalk.ui.render import render_template

    board = ReviewBoard()
    board.show([{**A, "args": {"inspection_id": "inspection-42", "subject": "Loose bolt", "priority": "high"}}])
    html = str(render_template("review_cards.j2", cards=board.cards(), notices=[]))
    select = re.search(r'<select id="sw-rf-int-a-priority" name="priority">(.*?)</select>', html, re.S)
    assert select is not None
    assert re.findall(r'<option value="([^"]*)"', select.group(1)) == ["low", "normal", "high", "urgent"]
    assert '<option value="high" selected>' in select.group(1)
    assert 'name="subject"' in html and '<details class="sw-review-raw">' in html  # closed until needed
    with pytest.raises(Refused):
        board.choose("int-a", "edit-json", SEEN_A, args_text='{"inspection_id": "i", "subject": "s", "priority": "x"}')
    html = str(render_template("review_cards.j2", cards=board.cards(), notices=[]))
    assert '<details class="sw-review-raw" open>' in html and "priority: must be one of" in html


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
