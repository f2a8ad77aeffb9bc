"""JSON-patch line streams (RFC 6902, one op a line) applied with jsonpatch."""

import json

from sitewalk.ui.progressive import ProgressiveScreen
from sitewalk_shared.ui_spec.patch_stream import PatchStream

LINES = [
    {"op": "add", "path": "/root", "value": "card"},
    {"op": "add", "path": "/elements/card", "value": {"type": "InspectionCard",
                                                       "props": {"title": "Inspection 42", "site": "Pier 4"},
                                                       "children": ["risk"]}},
    {"op": "add", "path": "/elements/risk", "value": {"type": "RiskBadge", "props": {"level": "low"}}},
    {"op": "replace", "path": "/elements/risk/props/level", "value": "high"},
    {"op": "add", "path": "/elements/card/props/findings", "value": ["rust"]},
]
TEXT = "".join(json.dumps(line) + "\n" for line in LINES)


def feed_all(stream, text, size):
    issues = []
    for i in range(0, len(text), size):
        issues += stream.feed(text[i:i + size])
    return issues + stream.close()


def test_lines_split_anywhere_build_the_spec():
    for size in (1, 7, 20, len(TEXT)):
        stream = PatchStream()
        assert feed_all(stream, TEXT, size) == []
        assert stream.applied == len(LINES)
        assert stream.spec["elements"]["risk"]["props"] == {"level": "high"}
        assert stream.spec["elements"]["card"]["props"]["findings"] == ["rust"]


def test_a_last_line_without_newline_is_applied_on_close():
    stream = PatchStream()
    stream.feed(json.dumps(LINES[0]))
    assert stream.spec["root"] == ""
    assert stream.close() == [] and stream.spec["root"] == "card"


def test_bad_lines_become_issues_and_change_nothing():
    bad = [
        "{not json",
        json.dumps({"path": "/root", "value": "x"}),
        json.dumps({"op": "frobnicate", "path": "/root"}),
        json.dumps({"op": "add", "path": "/elements/ghost/props/title", "value": "x"}),
        json.dumps({"op": "remove", "path": "/elements/nope"}),
        json.dumps({"op": "test", "path": "/root", "value": "other"}),
        json.dumps({"op": "move", "from": "/elements/missing", "path": "/elements/card"}),
    ]
    stream = PatchStream()
    text = TEXT + "\n".join(bad) + "\n"
    issues = feed_all(stream, text, 11)
    assert len(issues) == len(bad) and {i.code for i in issues} == {"invalid_patch"}
    assert [i.element for i in issues][3:5] == ["ghost", "nope"]
    assert all(i.repair and len(i.message) < 400 for i in issues)
    assert stream.applied == len(LINES)
    assert set(stream.spec["elements"]) == {"card", "risk"}  # the failed move removed nothing


def test_patch_stream_drives_the_progressive_screen():
    screen = ProgressiveScreen()
    old = {"root": "t", "elements": {"t": {"type": "Text", "props": {"text": "before"}}}}
    screen.finish(old)
    stream = PatchStream()
    screen.begin({"tool_call_id": "c", "revision": 1})
    shown = []
    for line in TEXT.splitlines(keepends=True):
        stream.feed(line)
        complete = stream.complete()
        screen.update(stream.spec, complete, complete)
        shown.append(json.loads(json.dumps(screen.shown)))
    assert shown[0] == old and shown[1] == old  # root named, but card not there yet / needs risk
    assert shown[2]["elements"]["risk"]["props"]["level"] == "low"
    assert shown[3]["elements"]["risk"]["props"]["level"] == "high"
    assert screen.finish(stream.spec) == [] and screen.shown["elements"]["card"]["props"]["findings"] == ["rust"]


def test_a_bad_line_in_the_stream_leaves_the_last_good_screen():
    screen = ProgressiveScreen()
    stream = PatchStream()
    stream.feed(TEXT)
    assert screen.finish(stream.spec) == []
    good = json.loads(json.dumps(screen.shown))
    stream2 = PatchStream(json.loads(json.dumps(good)))
    issues = stream2.feed('{"op":"replace","path":"/elements/risk/props/level","value":"purple"}\n{"op":"add"\n')
    assert [i.code for i in issues] == ["invalid_patch"]
    final = screen.finish(stream2.spec)
    assert [i.code for i in final] == ["invalid_props"] and screen.shown == good


def test_lines_that_are_not_patches_are_skipped_like_json_render():
    stream = PatchStream()
    text = "Here is the screen:\n```jsonl\n" + TEXT + "```\n\n"
    assert feed_all(stream, text, 13) == []
    assert stream.skipped == 3 and stream.applied == len(LINES)


def test_what_was_read_stays_as_it_was_while_later_ops_change_the_document():
    """Copy-on-write per element: a screen shown from `spec` keeps its lists and dicts as they were read."""
    stream = PatchStream()
    stream.feed(TEXT)
    read = stream.spec
    findings, risk = read["elements"]["card"]["props"]["findings"], read["elements"]["risk"]
    stream.feed('{"op":"add","path":"/elements/card/props/findings/-","value":"cracks"}\n'
                '{"op":"add","path":"/elements/card/props/findings/-","value":"loose bolts"}\n'
                '{"op":"replace","path":"/elements/risk/props/level","value":"critical"}\n')
    assert findings == ["rust"] and risk["props"]["level"] == "high"
    assert stream.spec["elements"]["card"]["props"]["findings"] == ["rust", "cracks", "loose bolts"]
    assert stream.spec["elements"]["risk"]["props"]["level"] == "critical"
    copied = stream.spec["elements"]["card"]
    stream.feed('{"op":"test","path":"/elements/card/props/site","value":"Pier 4"}\n')
    assert stream.spec["elements"]["card"] is copied  # a test op changes nothing: nothing to copy
