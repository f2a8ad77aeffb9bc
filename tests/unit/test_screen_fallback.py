"""The text fallback of a screen that failed validation: its words, in tree order, never an exception."""

from __future__ import annotations

import json

from sitewalk.ui.screen_fallback import MAX_LINES, fallback_lines, patched_for_fallback

SPEC = {"root": "screen", "elements": {
    "confirm": {"type": "ConfirmButton", "props": {"label": "Create work order", "action": "create_work_order"}},
    "screen": {"type": "Stack", "props": {"direction": "vertical"}, "children": ["card", "list", "confirm"]},
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4",
                                                 "findings": ["Crack", "Loose rail"]}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "high", "label": "Risk: high"}},
    "list": {"type": "Checklist", "props": {"items": [{"id": "a", "label": "Bollards"},
                                                      {"id": "b", "label": "Rails"}]}},
    "gauge": {"type": "Gauge", "props": {"value": 7}},  # unknown type, not in the tree
}}


def test_each_element_gives_its_type_and_words_in_tree_order_then_the_unreachable_ones():
    assert fallback_lines(SPEC) == [
        "Stack",
        "InspectionCard: Inspection 42 · Pier 4 · Crack · Loose rail",
        "RiskBadge: Risk: high · high",
        "Checklist: Bollards · Rails",
        "ConfirmButton: Create work order",
        "Gauge: 7",
    ]


def test_ids_actions_and_layout_props_are_not_words():
    [line] = fallback_lines({"root": "b", "elements": {"b": {"type": "ConfirmButton", "props": {
        "label": "Go", "action": "create_work_order", "subject": "risk-1"}}}})
    assert line == "ConfirmButton: Go"


def test_broken_shapes_give_fewer_lines_never_an_exception():
    assert fallback_lines(None) == [] and fallback_lines({"root": "x"}) == [] and fallback_lines([1]) == []
    cyclic = {"root": "a", "elements": {"a": {"type": "Stack", "children": ["b"]},
                                        "b": {"type": "Stack", "children": ["a", 3, None]}, "c": "not an element"}}
    assert fallback_lines(cyclic) == ["Stack", "Stack"]
    assert fallback_lines({"elements": {"t": {"type": "Text", "props": {"text": ["a", {"x": 1}, 2, True]}}}}) == [
        "Text: a · 2"]


def test_markup_stays_text_for_the_view_to_escape_and_output_is_bounded():
    [line] = fallback_lines({"root": "t", "elements": {"t": {"type": "Text", "props": {"text": "<b>x</b>" * 200}}}})
    assert line.startswith("Text: <b>x</b>") and len(line) == 500
    many = {"root": "", "elements": {f"e{k}": {"type": "Text", "props": {"text": str(k)}} for k in range(500)}}
    assert len(fallback_lines(many)) == MAX_LINES


def test_inline_patch_lines_are_applied_leniently_so_every_word_sent_shows():
    badge = {"type": "RiskBadge", "props": {"level": "low", "label": "Risk: low"}}
    base = {"root": "risk", "elements": {"risk": badge}}
    lines = "\n".join(json.dumps(op) for op in [
        {"op": "replace", "path": "/elements/risk/props/level", "value": "high"},
        {"op": "replace", "path": "/elements/badge/props/label", "value": "Risk: high"},  # no such element
        {"op": "replace", "path": "/elements/risk/props/label", "value": "Risk: high"},
    ]) + "\nnot json\n"
    spec = patched_for_fallback(base, lines)
    assert fallback_lines(spec) == ["RiskBadge: Risk: high · high"]
    assert base["elements"]["risk"]["props"]["level"] == "low"  # the screen on record is not changed
    assert fallback_lines(patched_for_fallback(None, '{"op":"add","path":"/elements/t","value":'
                                                     '{"type":"Text","props":{"text":"hi"}}}')) == ["Text: hi"]
