"""The incremental JSON parser and the spec stream on top of it: intermediate states and work."""

import json

import pytest

from sitewalk.ui.partial_json import PartialJsonError, PartialJsonParser
from sitewalk.ui.spec_stream import SpecStream

SPEC = {
    "root": "card",
    "elements": {
        "card": {"type": "InspectionCard", "props": {"title": "Inspection \"42\" \\ é ☃", "site": "Pier 4",
                                                      "findings": ["rust", "loose bolt"]},
                 "children": ["risk", "note"]},
        "risk": {"type": "RiskBadge", "props": {"level": "high"}, "children": []},
        "note": {"props": {"text": "props before type"}, "type": "Text"},
    },
}


def chunks(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 20, 10_000])
def test_any_fragmentation_gives_the_same_value(size):
    text = json.dumps({**SPEC, "n": [-1.5e3, 0, 12, True, False, None, {}, [], [[1], {"a": {}}]]})
    text = text[:-1] + ', "u": "\\u2603 \\ud83d\\ude00 \\n\\t\\/"}'
    value = json.loads(text)
    parser = PartialJsonParser()
    completed = []
    for piece in chunks(text, size):
        completed += parser.feed(piece)
    assert parser.close() == value
    assert completed[-1] == ((), value) and parser.done
    assert (("elements", "card", "props"), value["elements"]["card"]["props"]) in completed


def test_partial_value_is_built_in_place():
    parser = PartialJsonParser()
    parser.feed('{"root": "card", "elements": {"card": {"type": "Insp')
    assert parser.value == {"root": "card", "elements": {"card": {}}}
    assert parser.open_paths == [(), ("elements",), ("elements", "card")]
    parser.feed('ectionCard", "props": {"title": "T", "findings": ["a", "b')
    assert parser.value["elements"]["card"] == {"type": "InspectionCard", "props": {"title": "T", "findings": ["a"]}}


def test_numbers_and_escapes_split_anywhere():
    for text in ['[12345, -0.5e-3]', '"a\\"b\\\\c\\u00e9"', '{"k": true}', "123"]:
        for cut in range(1, len(text)):
            parser = PartialJsonParser()
            parser.feed(text[:cut])
            parser.feed(text[cut:])
            assert parser.close() == json.loads(text), (text, cut)


@pytest.mark.parametrize("bad", ['{"a" 1}', "[1,,2]", '{"a":1}}', "{1:2}", "[tru]", '"\\x"', "[1] [2]", "{,}", "]"])
def test_malformed_streams_raise_with_a_position(bad):
    parser = PartialJsonParser()
    with pytest.raises(PartialJsonError) as caught:
        for char in bad:
            parser.feed(char)
        parser.close()
    assert isinstance(caught.value, ValueError) and caught.value.position >= 0
    with pytest.raises(PartialJsonError):
        parser.feed("1")  # the parser stays failed


def test_truncated_stream_fails_on_close():
    parser = PartialJsonParser()
    parser.feed('{"root": "a", "elements": {')
    with pytest.raises(PartialJsonError):
        parser.close()


def test_spec_stream_reports_elements_as_they_complete():
    text = json.dumps(SPEC)
    stream = SpecStream()
    timeline = []
    for piece in chunks(text, 5):
        progress = stream.feed(piece)
        if progress.changed:
            timeline.append((stream.root, list(stream.complete), sorted(stream.settled)))
    assert stream.close() == SPEC
    # root first; card complete (type and props closed) before its children list settles
    assert timeline[0] == ("card", [], [])
    assert ("card", ["card"], []) in timeline
    assert ("card", ["card"], ["card"]) in timeline
    assert ("card", ["card", "risk"], ["card", "risk"]) in timeline
    # an element whose props come before its type completes when the type arrives
    assert timeline[-1] == ("card", ["card", "risk", "note"], ["card", "note", "risk"])


def test_props_still_open_means_not_complete():
    stream = SpecStream()
    stream.feed('{"root":"card","elements":{"card":{"type":"InspectionCard","props":{"title":"T"')
    assert list(stream.complete) == [] and stream.spec["elements"]["card"]["props"] == {"title": "T"}
    progress = stream.feed(',"site":"S"}')
    assert progress.completed == ["card"] and "card" not in stream.settled
    stream.feed("}")  # the element closed without children: settled too
    assert "card" in stream.settled


def big_spec(n_bytes):
    elements = {"root": {"type": "Stack", "props": {"gap": "md"}, "children": []}}
    i = 0
    while len(json.dumps(elements)) < n_bytes:
        key = f"t{i}"
        elements[key] = {"type": "Text", "props": {"text": f"finding {i}: " + "lorem ipsum " * 4}, "children": []}
        elements["root"]["children"].append(key)
        i += 1
    return {"root": "root", "elements": elements}


@pytest.mark.parametrize("fragment", [1, 20, 333])
def test_work_is_linear_in_the_stream_not_quadratic(fragment):
    """Count characters scanned, not time: at most ~2x the stream, whatever the size."""
    ratios = []
    for size in (25_000, 50_000, 100_000):
        text = json.dumps(big_spec(size))
        stream = SpecStream()
        for piece in chunks(text, fragment):
            stream.feed(piece)
        assert stream.close()["root"] == "root"
        ratios.append(stream.chars_scanned / len(text))
    assert max(ratios) <= 2.5, ratios
    assert max(ratios) - min(ratios) < 0.05, ratios  # the same ratio at 25, 50 and 100 KB


def test_one_long_string_in_tiny_fragments_is_scanned_a_bounded_number_of_times():
    text = json.dumps({"root": "x", "elements": {"x": {"type": "Text", "props": {"text": "a\\\"b" * 20_000}}}})
    parser = PartialJsonParser()
    for piece in chunks(text, 3):
        parser.feed(piece)
    parser.close()
    assert parser.chars_scanned <= 3 * len(text)


# -- deferred containers (PartialJsonParser(defer_depth=n), as SpecStream uses) -----------------

TRICKY = json.dumps({**SPEC, "n": [-1.5e3, 0, 12, True, False, None, {}, [], [[1], {"a": {"b": [{}]}}]]})[:-1] + (
    ', "u": {"s": "\\u2603 \\ud83d\\ude00 \\n\\t\\/ \\" \\\\", "k\\"ey": ["]", "}", "[{"]}, "x": 1e2}')


def events_of(parser, pieces):
    events = []
    for piece in pieces:
        events += parser.feed(piece)
    return events, parser.close()


@pytest.mark.parametrize("defer", [0, 1, 2, 3])
@pytest.mark.parametrize("size", [1, 2, 3, 7, 20, 10_000])
def test_deferred_containers_give_the_eager_value_and_the_shallow_events(defer, size):
    """Same final value; the events are the eager ones whose path has at most `defer` keys."""
    eager, value = events_of(PartialJsonParser(), chunks(TRICKY, size))
    deferred, deferred_value = events_of(PartialJsonParser(defer_depth=defer), chunks(TRICKY, size))
    assert value == deferred_value == json.loads(TRICKY)
    assert deferred == [(path, v) for path, v in eager if len(path) <= defer]


@pytest.mark.parametrize("defer", [1, 2, 3])
def test_the_partial_value_inside_a_deferred_container_matches_the_eager_one(defer):
    for cut in range(1, len(TRICKY)):
        eager, deferred = PartialJsonParser(), PartialJsonParser(defer_depth=defer)
        for part in (TRICKY[:cut // 2], TRICKY[cut // 2:cut]):
            eager.feed(part)
            deferred.feed(part)
            assert deferred.value == eager.value, (cut, part)
            assert deferred.open_paths == eager.open_paths
        deferred.feed(TRICKY[cut:])
        assert deferred.close() == json.loads(TRICKY)  # reading .value midway changes nothing


def test_escapes_surrogates_and_numbers_split_anywhere_in_a_deferred_container():
    texts = ['{"a": {"s": "x\\"y\\\\z\\u00e9\\ud83d\\ude00"}}', '{"a": [12345, -0.5e-3, "\\\\", "]"]}',
             '{"a": {"k": true, "n": null}, "b": 7}', '{"é☃": ["\\ud83d\\ude00", "☃"]}']
    for text in texts:
        for cut in range(1, len(text)):
            for cut2 in range(cut, len(text)):
                parser = PartialJsonParser(defer_depth=1)
                for piece in (text[:cut], text[cut:cut2], text[cut2:]):
                    parser.feed(piece)
                assert parser.close() == json.loads(text), (text, cut, cut2)


def first_error(parser, pieces, read_value=False):
    """(index of the fragment that raised, len(pieces) for close(), reason, offset)."""
    at = 0  # counts the fragments fed without an error: the index of the one that raises
    try:
        for piece in pieces:
            parser.feed(piece)
            if read_value:
                _ = parser.value  # reading .value fills in a deferred container (and may find an error)
            at += 1
        parser.close()
    except PartialJsonError as exc:
        return at, exc.reason, exc.position
    raise AssertionError("no error")


BAD = ['{"a": {"b" 1}}', '{"a": [1,,2]}', '{"a": {"b": 1}}}', '{"a": {1: 2}}', '{"a": [tru]}',
       '{"a": ["\\x"]}', '{"a": [NaN]}', '{"a": {"b": -Infinity}}', '{"a": {"b": 1]}', '{"a": [1}',
       '{"a": [01]}', '{"a": {"b": [1, 2', '{"a": {"b": "c\\', '{"a\\x": 1}', '{"a": 1 "b": 2}',
       '{"a": {"b": 1} "c": 2}', '{"a": [1] , }']


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_bad_stream_fails_with_the_eager_message_and_offset(bad, size):
    _, reason, position = first_error(PartialJsonParser(), chunks(bad, size))
    for defer in (1, 2):
        _, deferred_reason, deferred_position = first_error(PartialJsonParser(defer_depth=defer), chunks(bad, size))
        assert (deferred_reason, deferred_position) == (reason, position), (bad, defer)


@pytest.mark.parametrize("bad", BAD)
def test_a_bad_stream_fails_at_the_same_fragment_when_the_value_is_read(bad):
    """Reading .value after each fragment (as the screen does) surfaces an error inside a deferred
    container no later than the next fragment; members cut by a fragment fail at the same one."""
    pieces = chunks(bad, 1)
    at, reason, position = first_error(PartialJsonParser(), pieces)
    deferred_at, *rest = first_error(PartialJsonParser(defer_depth=1), pieces, read_value=True)
    assert rest == [reason, position] and at <= deferred_at <= at + 1, bad


def test_a_raw_control_character_is_treated_as_the_tokenizer_treats_it():
    text = '{"a": ["line\nbreak"]}'  # json.loads refuses it, the tokenizer accepts it (no escape)
    assert events_of(PartialJsonParser(defer_depth=1), [text])[1] == {"a": ["line\nbreak"]}
    assert events_of(PartialJsonParser(), [text])[1] == {"a": ["line\nbreak"]}


def test_members_cut_by_fragments_keep_their_events_and_errors():
    text = '{"root": "a", "n": -12.5e1, "t": true, "e": {"x": 1}, "k\\"q": "v\\u00e9"}'
    for cut in range(1, len(text)):
        parser = PartialJsonParser()
        events = parser.feed(text[:cut]) + parser.feed(text[cut:])
        assert parser.close() == json.loads(text)
        assert [path for path, _ in events] == [("root",), ("n",), ("t",), ("e", "x"), ("e",), ('k"q',), ()]
    parser = PartialJsonParser()
    parser.feed('{"a": tr')
    with pytest.raises(PartialJsonError) as caught:
        parser.feed('ux}')
    assert caught.value.position == 6


def test_spec_stream_completes_an_element_when_its_type_arrives_after_its_props():
    stream = SpecStream()
    stream.feed('{"root": "n", "elements": {"n": {"props": {"text": "T"}, "type": "Te')
    assert list(stream.complete) == []
    progress = stream.feed('xt", "children": ["a"')
    assert progress.completed == ["n"] and not progress.settled
    assert stream.spec["elements"]["n"] == {"props": {"text": "T"}, "type": "Text", "children": ["a"]}
    assert stream.feed("]").settled == ["n"]


@pytest.mark.parametrize("fragment", [1, 3, 20])
def test_a_big_deferred_container_is_skimmed_once_not_once_per_fragment(fragment):
    """A props object with a long string and many nested brackets, streamed in tiny fragments."""
    props = {"text": "a\\\"b]}" * 5_000, "rows": [{"c": [i, {"d": "x}"}]} for i in range(2_000)]}
    text = json.dumps({"root": "x", "elements": {"x": {"type": "Text", "props": props}}})
    stream = SpecStream()
    for piece in chunks(text, fragment):
        stream.feed(piece)
    assert stream.close()["elements"]["x"]["props"] == props
    assert stream.chars_scanned <= 3.5 * len(text)


# -- a frame's fragments at once (SpecStream.append / take): elements decoded whole ----------------------

def _events(text, size, defer_depth=3):
    parser = PartialJsonParser(defer_depth=defer_depth)
    events = [event for piece in chunks(text, size) for event in parser.feed(piece)]
    return events, parser.close()


@pytest.mark.parametrize("size", [300, 1_000, 100_000])
def test_whole_elements_in_a_long_buffer_give_the_tokenizers_events(size):
    """An element whole in a long buffer is decoded by one json call: the same events, in the same order, as
    the tokenizer gives fragment by fragment."""
    text = json.dumps(big_spec(20_000))
    assert _events(text, size) == _events(text, 7)


def test_an_element_whole_at_the_end_of_a_long_buffer_is_decoded_whole_too():
    """A frame's text often ends just after an element: that element is decoded by one json call like the
    ones before it (each character looked at once), not tokenized with its props skimmed and decoded."""
    spec = {"root": "r", "elements": {"r": {"type": "Stack", "props": {"gap": "md"}, "children": ["a"]},
                                      "a": {"type": "Text", "props": {"text": "x" * 200}, "children": []}}}
    text = json.dumps(spec)
    buffer = text[:text.rindex("}", 0, len(text) - 2) + 1]  # up to the end of element "a"
    parser = PartialJsonParser(defer_depth=3)
    events = parser.feed(buffer)
    assert len(buffer) >= 256 and events[-1] == (("elements", "a"), spec["elements"]["a"])
    assert parser.chars_scanned == len(buffer)


def test_an_element_the_json_module_refuses_is_left_to_the_tokenizer():
    """NaN inside an element in a long buffer: refused (at the same offset) as fragment by fragment."""
    spec = big_spec(2_000)
    text = json.dumps(spec).replace('"gap": "md"', '"gap": NaN')
    positions = []
    for size in (7, 100_000):
        with pytest.raises(PartialJsonError) as caught:
            _events(text, size)
        positions.append(caught.value.position)
    assert positions[0] == positions[1]


def test_a_spec_taken_once_a_frame_ends_where_fragment_by_fragment_does():
    text = json.dumps(SPEC) + " " * 300  # long enough for the whole-element path
    every, framed = SpecStream(), SpecStream()
    for piece in chunks(text, 5):
        every.feed(piece)
        framed.append(piece)
    assert framed.spec == {} and not framed.complete  # nothing parsed before a take
    progress = framed.take()
    assert set(progress.completed) == {"card", "risk", "note"} and progress.root_changed
    assert (framed.root, list(framed.complete), framed.settled) == (every.root, list(every.complete), every.settled)
    assert framed.close() == every.close() == SPEC


# -- a deferred container taken in frames (long texts: skimmed as they come) -----------------------------

LONG_PROPS = {"rows": [{"t": 'a "quoted" ] } \\ [{', "n": [i, {"d": "x}]"}]} for i in range(300)], "u": "\u2603 \\"}


@pytest.mark.parametrize("frame", [256, 257, 300, 999, 1_000])
def test_a_deferred_container_cut_by_long_frames_gives_the_eager_value_and_events(frame):
    """Brackets in strings and escapes cut by a frame's end, in a container skimmed a frame at a time."""
    text = json.dumps({"root": "x", "elements": {"x": {"type": "Text", "props": LONG_PROPS, "children": []}}})
    eager, value = events_of(PartialJsonParser(), chunks(text, frame))
    deferred, deferred_value = events_of(PartialJsonParser(defer_depth=3), chunks(text, frame))
    assert value == deferred_value == json.loads(text)
    assert deferred == [(path, v) for path, v in eager if len(path) <= 3]


@pytest.mark.parametrize("frame", [300, 1_000, 4_000])
def test_a_deferred_container_taken_in_frames_is_looked_at_twice_a_character(frame):
    """A long children list taken a frame at a time: each frame skimmed as it comes, the whole decoded once;
    not tested for a closing bracket first and skimmed again when the last frame brings it."""
    children = [f"child-{i}" for i in range(2_000)]
    head = '{"root": "x", "elements": {"x": {"type": "Stack", "children": '
    text = head + json.dumps(children) + "}}}"
    stream = SpecStream()
    for piece in chunks(text, frame):
        stream.append(piece)
        stream.take()
    assert stream.close()["elements"]["x"]["children"] == children
    assert stream.chars_scanned <= len(text) + len(json.dumps(children)) + frame


def test_escaped_keys_in_a_run_of_whole_elements_are_decoded():
    """Element ids with escapes, one after another in a frame's text: decoded as the tokenizer decodes them."""
    elements = {key: {"type": "Text", "props": {"text": key * 20}} for key in ('a"b', "c\\d", "\u2603", "e/f")}
    text = json.dumps({"root": 'a"b', "elements": elements}, ensure_ascii=True)
    assert len(text) >= 256 and "\\u2603" in text
    assert _events(text, len(text)) == _events(text, 7)
    assert _events(text, len(text))[1] == json.loads(text)


@pytest.mark.parametrize("frame", [5, 1_000])
def test_an_element_without_props_completes_when_it_closes_and_one_without_a_string_type_never(frame):
    """Fragment by fragment and a frame at a time (the whole-element path): props default to {} once the
    element closes; a type that is not a string never makes an element complete."""
    elements = {"div": {"type": "Divider"}, "odd": {"type": 5, "props": {}},
                "pad": {"type": "Text", "props": {"text": "x" * 300}}}
    text = json.dumps({"root": "pad", "elements": elements})
    stream = SpecStream()
    completed = []
    for piece in chunks(text, frame):
        stream.append(piece)
        progress = stream.take()
        completed += progress.completed
        if "div" in progress.completed:
            assert stream.spec["elements"]["div"] == {"type": "Divider"}  # closed, not only typed
    assert completed == list(stream.complete) == ["div", "pad"]
    assert stream.settled == {"div", "odd", "pad"}


def test_the_last_whole_element_of_a_frame_with_no_list_after_it_is_decoded_whole():
    """No `]` after the last element's opening bracket, only `}`: still decoded by one json call (each
    character looked at once)."""
    elements = {f"e{i}": {"type": "Text", "props": {"text": "y" * 40}} for i in range(6)}
    text = json.dumps({"root": "e0", "elements": elements})
    buffer = text[:-2]  # up to the end of the last element
    parser = PartialJsonParser(defer_depth=3)
    events = parser.feed(buffer)
    assert len(buffer) >= 256 and events[-1] == (("elements", "e5"), elements["e5"])
    assert parser.chars_scanned == len(buffer)


@pytest.mark.parametrize("frame", range(256, 270))
def test_frames_without_brackets_keep_the_string_state_of_a_deferred_container(frame):
    """Frames with no bracket and no backslash only count quotes: a frame that ends inside a string (an odd
    count) leaves the next frame's brackets in that string, whatever the frames' length."""
    rows = [item for i in range(40) for item in ["a" * (i * 37 % 300) + "]}[{" + "a" * (i * 53 % 200), *range(40)]]
    text = '{"root": "x", "elements": {"x": {"type": "Table", "props": {"rows": ' + json.dumps(rows) + "}}}}"
    eager, value = events_of(PartialJsonParser(), chunks(text, frame))
    deferred, deferred_value = events_of(PartialJsonParser(defer_depth=3), chunks(text, frame))
    assert value == deferred_value == json.loads(text)
    assert deferred == [(path, v) for path, v in eager if len(path) <= 3]
