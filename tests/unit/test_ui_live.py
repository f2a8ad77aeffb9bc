"""LiveScreen: the current call's stream drives the screen; others and broken streams do not."""

import json

from sitewalk.ui.current import SpecCandidate
from sitewalk.ui.live import LiveScreen

OLD = {"root": "t", "elements": {"t": {"type": "Text", "props": {"text": "old"}, "children": []}}}
NEW = {"root": "card", "elements": {
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "high"}, "children": []}}}


def cand(message, call_id, call=0, revision=0):
    return SpecCandidate(message, call, "render_ui", call_id, revision, message_id=f"m{message}")


def stream(live, candidate, spec, size=6):
    text = json.dumps(spec)
    changes = sum(live.fragment(candidate, text[i:i + size]) for i in range(0, len(text), size))
    return changes, live.complete(candidate)


def with_old():
    live = LiveScreen()
    stream(live, cand(0, "a"), OLD)
    assert live.shown == OLD
    return live


def test_a_streamed_call_replaces_the_screen_step_by_step():
    live = with_old()
    changes, issues = stream(live, cand(1, "b"), NEW)
    assert issues == [] and live.shown == NEW and changes >= 1
    assert live.screen.good == NEW


def test_an_older_call_streaming_late_does_not_take_the_screen():
    live = with_old()
    stream(live, cand(2, "new"), NEW)
    changes, issues = stream(live, cand(1, "late"), OLD)
    assert changes == 0 and issues == [] and live.shown == NEW


def test_arguments_that_are_not_json_keep_the_last_good_screen_with_an_issue():
    live = with_old()
    live.fragment(cand(1, "b"), '{"root": "card", "elements": {"card": {"type": "Text", "props": {"text": "x"}}}')
    live.fragment(cand(1, "b"), "]]")
    assert live.shown == OLD and [i.code for i in live.issues] == ["invalid_shape"]
    assert live.fragment(cand(1, "b"), "more") is False  # the broken call stays ignored
    assert [i.code for i in live.complete(cand(1, "b"))] == ["invalid_shape"]


def test_patch_lines_for_a_new_call():
    live = with_old()
    lines = [{"op": "add", "path": "/root", "value": "card"},
             {"op": "add", "path": "/elements/card", "value": NEW["elements"]["card"]},
             {"op": "add", "path": "/elements/risk", "value": NEW["elements"]["risk"]}]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    shown = []
    for line in text.splitlines(keepends=True):
        live.patch_lines(cand(1, "p"), line)
        shown.append(live.shown["root"])
    assert shown == ["t", "t", "card"]
    assert live.complete(cand(1, "p")) == [] and live.shown == NEW


def test_a_bad_patch_line_is_an_issue_and_the_last_good_screen_stays():
    live = with_old()
    good = json.dumps({"op": "add", "path": "/root", "value": "t2"}) + "\n" + json.dumps(
        {"op": "add", "path": "/elements/t2", "value": {"type": "Text", "props": {"text": "new"}}}) + "\n"
    live.patch_lines(cand(1, "p"), good)
    assert live.shown["root"] == "t2"  # progress was shown
    live.patch_lines(cand(1, "p"), '{"op": "replace", "path": "/elements/ghost/props/text", "value": "x"}\n')
    assert [i.code for i in live.issues] == ["invalid_patch"]
    assert live.shown == OLD  # at once, not only when the stream ends
    # the rest of that stream is ignored: it builds on a document the agent did not mean
    assert live.patch_lines(cand(1, "p"), good) is False and live.shown == OLD
    issues = live.complete(cand(1, "p"))
    assert [i.code for i in issues] == ["invalid_patch"] and live.shown == OLD


def test_a_bad_last_line_without_a_newline_is_found_when_the_stream_ends():
    live = with_old()
    live.patch_lines(cand(1, "p"), '{"op": "add", "path": "/root", "value": "t"}\n{"op": "remove", "path": "/nope"}')
    issues = live.complete(cand(1, "p"))
    assert [i.code for i in issues] == ["invalid_patch"] and live.shown == OLD


def test_patch_lines_edit_the_screen_on_record_and_leave_the_base_unchanged():
    live = with_old()
    base = json.loads(json.dumps(NEW))
    live.patch_lines(cand(1, "p"), '{"op": "replace", "path": "/elements/risk/props/level", "value": "critical"}\n',
                     base=base)
    assert live.shown["elements"]["risk"]["props"]["level"] == "critical"  # the base's root was ready
    assert live.complete(cand(1, "p")) == []
    assert live.shown["elements"]["card"] == NEW["elements"]["card"]
    assert base == NEW  # copied, not changed


def test_final_args_given_by_the_server_are_validated():
    live = with_old()
    bad = json.loads(json.dumps(NEW))
    bad["elements"]["risk"]["type"] = "Marquee"
    assert [i.code for i in live.complete(cand(1, "b"), bad)] == ["unknown_type"]
    assert live.shown == OLD


def test_a_streaming_call_shows_its_screen_when_read_before_it_completes():
    """The fragments are parsed when the screen is read (once a frame), not one by one; read after all of
    them, before the call completes, the screen is the new one."""
    live = with_old()
    text = json.dumps(NEW)
    for i in range(0, len(text), 6):
        live.fragment(cand(1, "b"), text[i:i + 6])
    assert live.shown == NEW and live.issues == []
