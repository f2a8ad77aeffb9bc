"""The progressive filter and the screen across specs: what shows while a spec streams."""

import json

from sitewalk.ui.progressive import ProgressiveScreen, renderable, root_ready
from sitewalk.ui.render import render_spec
from sitewalk.ui.spec_stream import SpecStream
from sitewalk_shared.ui_spec.validate import Issue

OLD = {"root": "old", "elements": {"old": {"type": "Text", "props": {"text": "previous screen"}}}}
NEW = {
    "root": "screen",
    "elements": {
        "screen": {"type": "Stack", "props": {}, "children": ["card", "steps"]},
        "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"},
                 "children": ["risk"]},
        "steps": {"type": "Checklist", "props": {"items": [{"id": "a", "label": "Rails"}]}},
        "risk": {"type": "RiskBadge", "props": {"level": "high"}},
    },
}


def stream_into(screen, spec, size=9, text=None):
    """Stream a spec's JSON through SpecStream into the screen; return each distinct shown state."""
    text = text if text is not None else json.dumps(spec)
    stream = SpecStream()
    screen.begin({"tool_call_id": "call-2", "revision": 0})
    states = [screen.shown]
    for i in range(0, len(text), size):
        if stream.feed(text[i:i + size]).changed and screen.update(stream.spec, stream.complete, stream.settled):
            states.append(screen.shown)
    screen.finish(stream.close())
    if screen.shown != states[-1]:
        states.append(screen.shown)
    return states


def good_screen():
    screen = ProgressiveScreen()
    assert screen.finish(OLD) == []
    return screen


def test_the_old_screen_stays_until_the_new_root_and_its_children_arrived():
    screen = good_screen()
    states = stream_into(screen, NEW)
    assert states[0] == OLD
    first_new = states[1]
    assert first_new["root"] == "screen"
    assert set(first_new["elements"]) == {"screen", "card", "steps"}  # not before card and steps are complete
    assert first_new["elements"]["card"]["children"] == []  # risk has not arrived yet
    assert states[-1] == NEW and screen.good == NEW
    for state in states:
        render_spec(state)  # every intermediate state renders


def test_intermediate_states_grow_one_element_at_a_time():
    screen = good_screen()
    states = stream_into(screen, NEW, size=1)
    sizes = [len(s["elements"]) for s in states]
    assert sizes == [1, 3, 4, 4]  # old, root+children, +risk, final (normalised children)


def test_a_final_spec_that_fails_validation_leaves_the_last_good_screen_and_issues():
    screen = good_screen()
    bad = json.loads(json.dumps(NEW))
    bad["elements"]["risk"]["props"]["level"] = "purple"
    bad["elements"]["steps"]["type"] = "Marquee"
    states = stream_into(screen, bad)
    assert any(s and s["root"] == "screen" for s in states)  # it did show progress while streaming
    assert screen.shown == OLD and screen.good == OLD
    assert {(i.code, i.element) for i in screen.issues} == {("invalid_props", "risk"), ("unknown_type", "steps")}


def test_invalid_or_unknown_elements_never_render_while_streaming():
    spec = {"root": "s", "elements": {"s": {"type": "Stack", "children": ["a", "b", "c"]},
                                      "a": {"type": "Marquee", "props": {}},
                                      "b": {"type": "RiskBadge", "props": {"level": "purple"}},
                                      "c": {"type": "Text", "props": {"text": "ok"}}}}
    out = renderable(spec, set(spec["elements"]))
    assert out == {"root": "s", "elements": {"s": {"type": "Stack", "props": {}, "children": ["c"]},
                                             "c": {"type": "Text", "props": {"text": "ok"}, "children": []}}}


def test_renderable_breaks_cycles_and_skips_missing_children():
    spec = {"root": "a", "elements": {"a": {"type": "Stack", "children": ["b", "ghost"]},
                                      "b": {"type": "Stack", "children": ["a", "t"]},
                                      "t": {"type": "Text", "props": {"text": "x"}}}}
    out = renderable(spec, {"a", "b", "t"})
    assert out["elements"]["a"]["children"] == ["b"] and out["elements"]["b"]["children"] == ["t"]
    render_spec(out)


def test_no_root_yet_means_nothing_to_render():
    assert renderable({"elements": {}}, set()) is None
    assert renderable({"root": "x", "elements": {"x": {"type": "Text"}}}, set()) is None
    assert not root_ready({"root": "x", "elements": {"x": {"type": "Stack", "children": ["y"]}}}, {"x"}, {"x"})


def test_first_spec_with_no_previous_screen():
    screen = ProgressiveScreen()
    states = stream_into(screen, NEW)
    assert states[0] is None and states[-1] == NEW


def test_a_broken_stream_keeps_the_last_good_screen():
    screen = good_screen()
    screen.begin()
    screen.update(NEW, set(NEW["elements"]), set(NEW["elements"]))
    assert screen.shown["root"] == "screen"
    screen.fail(Issue("invalid_shape", None, "arguments are not JSON", "Send JSON."))
    assert screen.shown == OLD and [i.code for i in screen.issues] == ["invalid_shape"]
