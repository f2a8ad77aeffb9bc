"""Inline screens: JSON-patch lines in the agent's text, split from its prose fragment by fragment."""

import json

import pytest

from sitewalk_shared.ui_spec.inline import InlineSplitter, apply_inline_spec, split_inline
from sitewalk_shared.ui_spec.model import inline_spec_call_id, record_screen

CARD = {"root": "card", "elements": {
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "low"}, "children": []}}}
EDIT = '{"op":"replace","path":"/elements/risk/props/level","value":"high"}'
MESSAGE = f"Raising the risk.\n{EDIT}\n  {EDIT}\nThat is all.\n"


def split_in_pieces(text, size):
    """(prose, patch text, splitter) of `text` fed to one InlineSplitter `size` characters at a time."""
    splitter, prose, patch = InlineSplitter(), [], []
    for i in range(0, len(text), size):
        words, ops = splitter.feed(text[i:i + size])
        prose.append(words)
        patch.append(ops)
    prose.append(splitter.close())
    return "".join(prose), "".join(patch), splitter


@pytest.mark.parametrize("size", [1, 2, 3, 7, 20, len(MESSAGE)])
def test_prose_and_patch_lines_come_apart_whatever_the_fragment_size(size):
    prose, patch, splitter = split_in_pieces(MESSAGE, size)
    assert prose == "Raising the risk.\nThat is all.\n"
    assert patch == f"{EDIT}\n{EDIT}\n"  # a patch line's leading blanks are dropped
    assert splitter.patch_lines == 2


def test_prose_reaches_the_transcript_before_its_line_ends():
    splitter = InlineSplitter()
    assert splitter.feed("Looking at") == ("Looking at", "")
    assert splitter.feed(" the rail {not a patch}\n") == (" the rail {not a patch}\n", "")
    assert splitter.feed("   ") == ("", "")  # undecided: blanks are held
    assert splitter.feed('{"op"') == ("", '{"op"')


def test_blank_lines_and_trailing_blanks_stay_prose():
    assert split_inline("a\n\n \n{}\n  ") == ("a\n\n \n  ", "{}\n")


def test_a_message_without_patch_lines_leaves_the_screen_alone():
    assert apply_inline_spec("Just words.\nMore words.", CARD) is None


def test_patch_lines_edit_the_screen_on_record():
    spec, issues = apply_inline_spec(MESSAGE, {**CARD, "identity": {"tool_call_id": "c1"}})
    assert issues == [] and spec["elements"]["risk"]["props"]["level"] == "high"
    assert "identity" not in spec and CARD["elements"]["risk"]["props"]["level"] == "low"


def test_a_screen_from_nothing():
    lines = [{"op": "add", "path": "/root", "value": "card"},
             *({"op": "add", "path": f"/elements/{k}", "value": v} for k, v in CARD["elements"].items())]
    spec, issues = apply_inline_spec("Here it is.\n" + "\n".join(map(json.dumps, lines)), None)
    assert issues == [] and spec == CARD


def test_a_bad_line_is_an_issue_and_so_is_an_invalid_result():
    _, issues = apply_inline_spec(f"{EDIT}\n" + '{"op":"remove","path":"/elements/ghost"}', CARD)
    assert [i.code for i in issues] == ["invalid_patch"]
    _, issues = apply_inline_spec('{"op":"replace","path":"/elements/risk/type","value":"Marquee"}', CARD)
    assert [i.code for i in issues] == ["unknown_type"]


def test_the_identity_of_an_inline_screen_names_its_message():
    on_record = record_screen(CARD, None, message_id="msg_0", tool_call_id="call_0")
    recorded = record_screen(CARD, on_record, message_id="msg_1", tool_call_id=inline_spec_call_id("msg_1"))
    assert recorded["identity"] == {"message_id": "msg_1", "tool_call_id": "msg_1:inline_spec", "revision": 2}
    assert {k: recorded[k] for k in ("root", "elements")} == CARD


FENCED = 'Here it is:\n```spec\n{"op":"add","path":"/root","value":"t"}\nnot a patch\n\n```\nDone.\n`code` first\n'


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, len(FENCED)])
def test_a_spec_fence_holds_patch_lines_and_its_other_lines_are_dropped(size):
    prose, patch, _ = split_in_pieces(FENCED, size)
    assert prose == "Here it is:\nDone.\n`code` first\n"
    assert patch == '{"op":"add","path":"/root","value":"t"}\n'


def test_a_line_starting_with_a_backtick_waits_for_its_end_in_case_it_is_a_fence():
    splitter = InlineSplitter()
    assert splitter.feed("`x` is") == ("", "")
    assert splitter.feed(" code\n") == ("`x` is code\n", "")
    assert splitter.feed("```json\n") == ("```json\n", "")  # only a spec fence is taken out
    assert splitter.feed("``") == ("", "") and splitter.close() == "``"
