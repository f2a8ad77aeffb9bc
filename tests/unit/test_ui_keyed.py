"""Keyed rendering plan: only changed elements re-render; shallow templates slot their children."""

import copy

from sitewalk.ui.keyed import plan_update, shallow_html
from sitewalk.ui.render import render_spec

SPEC = {"root": "s", "elements": {
    "s": {"type": "Stack", "props": {"gap": "md"}, "children": ["card", "note"]},
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "high"}, "children": []},
    "note": {"type": "Text", "props": {"text": "hello"}, "children": []}}}


def changed(**edits):
    spec = copy.deepcopy(SPEC)
    for key, props in edits.items():
        spec["elements"][key]["props"].update(props)
    return spec


def test_first_render_is_every_element_children_first():
    plan = plan_update(None, SPEC)
    assert plan.dirty == ["risk", "card", "note", "s"] and plan.top == ["s"] and plan.root_changed


def test_same_spec_is_an_empty_plan():
    assert plan_update(SPEC, copy.deepcopy(SPEC)).empty


def test_one_prop_changed_re_renders_that_element_only():
    plan = plan_update(SPEC, changed(risk={"level": "low"}))
    assert plan.dirty == ["risk"] and plan.top == ["risk"] and not plan.removed and not plan.root_changed


def test_a_parent_prop_changed_keeps_its_children():
    plan = plan_update(SPEC, changed(card={"site": "Pier 5"}))
    assert plan.dirty == ["card"] and plan.top == ["card"]


def test_added_and_removed_children_dirty_the_parent_only():
    new = copy.deepcopy(SPEC)
    new["elements"]["s"]["children"] = ["card", "extra"]
    new["elements"]["extra"] = {"type": "Divider", "props": {}, "children": []}
    del new["elements"]["note"]
    plan = plan_update(SPEC, new)
    assert plan.dirty == ["extra", "s"] and plan.top == ["s"] and plan.removed == ["note"]


def test_a_new_root_replaces_the_screen():
    new = {"root": "note", "elements": {"note": SPEC["elements"]["note"]}}
    plan = plan_update(SPEC, new)
    assert plan.root_changed and plan.dirty == [] and set(plan.removed) == {"s", "card", "risk"}


def test_a_shared_child_that_changes_re_renders_all_its_parents():
    spec = copy.deepcopy(SPEC)
    spec["elements"]["card"]["children"] = ["risk", "note"]
    new = copy.deepcopy(spec)
    new["elements"]["note"]["props"]["text"] = "bye"
    plan = plan_update(spec, new)
    assert set(plan.dirty) == {"note", "card", "s"} and plan.top == ["s"]


def test_shallow_template_has_a_slot_per_child_and_escapes_props():
    html = shallow_html("card", {"type": "InspectionCard", "props": {"title": "<img src=x onerror=alert(1)>",
                                                                     "site": "<script>x()</script>"},
                                 "children": ["risk"]})
    assert '<sw-slot data-sw-slot="risk"></sw-slot>' in html
    assert "<img" not in html and "<script>" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_slots_filled_give_the_full_render():
    parts = {key: shallow_html(key, el) for key, el in SPEC["elements"].items()}

    def fill(key):
        html = parts[key]
        for child in SPEC["elements"][key]["children"]:
            html = html.replace(f'<sw-slot data-sw-slot="{child}"></sw-slot>', fill(child))
        return html

    assert fill("s") == render_spec(SPEC)


def test_the_walk_of_the_spec_on_screen_can_be_handed_back_instead_of_redone():
    import json as _json

    from sitewalk.ui.keyed import plan_update

    old = {"root": "s", "elements": {"s": {"type": "Stack", "props": {}, "children": ["a", "b"]},
                                     "a": {"type": "Text", "props": {"text": "a"}, "children": []},
                                     "b": {"type": "Text", "props": {"text": "b"}, "children": []}}}
    first = plan_update(None, old)
    new = _json.loads(_json.dumps(old))
    new["elements"]["b"]["props"]["text"] = "B"
    del new["elements"]["a"]
    new["elements"]["s"]["children"] = ["b"]
    assert first.reach == (["a", "b", "s"], {"s": [], "a": ["s"], "b": ["s"]})
    handed = plan_update(old, new, first.reach)
    assert (handed.dirty, handed.top, handed.removed) == (["b", "s"], ["s"], ["a"])
    assert handed == plan_update(old, new)
