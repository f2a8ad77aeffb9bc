"""The rule for moving the inspector's focus (sitewalk.bridge.attention): never away from text being typed."""

from __future__ import annotations

import pytest

from sitewalk.bridge.attention import is_typing


@pytest.mark.parametrize(("tag", "kind", "value"), [
    ("TEXTAREA", "", "loose bolt"), ("INPUT", "", "inspection-4"), ("INPUT", "text", "x"),
    ("INPUT", "number", "3"), ("input", "search", "pier"),
])
def test_a_text_field_holding_text_is_being_typed_in(tag, kind, value):
    assert is_typing(tag, kind, value)


@pytest.mark.parametrize(("tag", "kind", "value"), [
    ("TEXTAREA", "", ""), ("INPUT", "text", ""),  # an empty field: nothing of the inspector's to lose
    ("BUTTON", "button", "x"), ("INPUT", "checkbox", "on"), ("INPUT", "file", "C:\\fakepath\\a.jpg"),
    ("SUMMARY", "", ""), ("BODY", "", ""), ("SELECT", "", "high"),
])
def test_anything_else_may_give_the_focus_away(tag, kind, value):
    assert not is_typing(tag, kind, value)


def test_an_editable_element_is_always_being_typed_in():
    assert is_typing("DIV", "", "", editable=True)
