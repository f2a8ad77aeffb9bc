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
