"""The SSE decoder on streams recorded from a real `langgraph dev`, and on hand-written edge cases."""

from __future__ import annotations

import codecs
import json
import random
from pathlib import Path

import pytest

from sitewalk.agentserver.sse import ServerSentEvent, SSEDecoder

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = sorted(p.name for p in FIXTURES.glob("*.sse"))


def decode(chunks) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    out: list[ServerSentEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def text_chunks(raw: bytes, sizes) -> list[str]:
    """Cut raw bytes anywhere (even inside a UTF-8 sequence or a CRLF) and decode incrementally."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    out, i = [], 0
    for size in sizes:
        if i >= len(raw):
            break
        out.append(utf8.decode(raw[i : i + size]))
        i += size
    if i < len(raw):
        out.append(utf8.decode(raw[i:]))
    out.append(utf8.decode(b"", final=True))
    return out


def random_sizes(seed: int, limit: int = 64):
    rng = random.Random(seed)
    while True:
        yield rng.randint(1, limit)


def test_fixtures_exist():
    assert {"start.sse", "resume_render.sse", "run_error.sse"} <= set(RECORDED)


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_stream_is_crlf_and_decodes(name):
    raw = (FIXTURES / name).read_bytes()
    assert b"\r\n" in raw
    events = decode([raw.decode("utf-8")])
    assert events
    if name.endswith(("_events.sse", "_events_since.sse")):  # the event protocol: sequence numbers
        seqs = [json.loads(event.data)["seq"] for event in events]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    else:  # a run stream opens with its run's metadata
        assert events[0].event == "metadata"
        assert "run_id" in json.loads(events[0].data)
    for event in events:
        json.loads(event.data)  # every payload is whole JSON
        assert "\r" not in event.data


@pytest.mark.parametrize("name", RECORDED)
@pytest.mark.parametrize("cut", ["bytes1", "random7", "random64", "random4096"])
def test_recorded_stream_same_however_cut(name, cut):
    raw = (FIXTURES / name).read_bytes()
    whole = decode([raw.decode("utf-8")])
    if cut == "bytes1":
        sizes = iter(lambda: 1, None)
    else:
        limit = int(cut.removeprefix("random"))
        sizes = random_sizes(limit, limit)
    assert decode(text_chunks(raw, sizes)) == whole


def test_recorded_start_stream_shape():
    events = decode([(FIXTURES / "start.sse").read_text("utf-8")])
    kinds = [e.event for e in events]
    assert set(kinds) <= {"metadata", "values", "updates", "messages"}
    interrupt_updates = [json.loads(e.data) for e in events if e.event == "updates" and "__interrupt__" in e.data]
    assert len(interrupt_updates) == 1
    [item] = interrupt_updates[0]["__interrupt__"]
    assert item["id"] and item["value"]["type"] == "tool"
    assert item["value"]["tool_call"]["name"] == "read_local_draft"
    assert all(e.id is None for e in events)  # ids only with stream_resumable


def test_recorded_resume_stream_has_heartbeat_ids_and_fragments():
    raw = (FIXTURES / "resume_render.sse").read_text("utf-8")
    assert ": heartbeat" in raw
    decoder = SSEDecoder()
    events = decoder.feed(raw) + decoder.close()
    assert decoder.comments >= 1
    assert all(e.id for e in events)  # stream_resumable: every event has an id
    # `id:` follows `data:` on the wire, and still belongs to its own event
    assert raw.index("data: ", raw.index("event: metadata")) < raw.index("id: ")
    fragments = [
        chunk
        for e in events
        if e.event == "messages"
        for chunk in json.loads(e.data)[0].get("tool_call_chunks", [])
    ]
    assert len(fragments) >= 5
    assert fragments[0]["name"] == "render_ui" and fragments[0]["id"]
    assert all(f["name"] is None and f["id"] is None for f in fragments[1:])
    spec = json.loads("".join(f["args"] for f in fragments))
    assert spec["root"] == "card" and spec["elements"]["card"]["props"]["site"].endswith("Kraków")


def test_recorded_error_event():
    events = decode([(FIXTURES / "run_error.sse").read_text("utf-8")])
    assert events[-1].event == "error"
    body = json.loads(events[-1].data)
    assert body["error"] == "ValueError" and "robot" in body["message"]


# --- hand-written edge cases ----------------------------------------------------------------


@pytest.mark.parametrize("eol", ["\r\n", "\n", "\r"])
def test_line_endings(eol):
    stream = eol.join(["event: values", "data: {\"a\": 1}", "", "data: two", "", ""])
    assert decode([stream]) == [
        ServerSentEvent("values", '{"a": 1}'),
        ServerSentEvent("message", "two"),
    ]


def test_cr_at_end_of_chunk_lf_at_start_of_next_is_one_line_ending():
    events = decode(["data: a\r", "\ndata: b\r", "\n\r", "\n"])
    assert events == [ServerSentEvent("message", "a\nb")]


def test_cr_then_non_lf_in_next_chunk():
    assert decode(["data: a\r", "data: b\r", "\r"]) == [ServerSentEvent("message", "a\nb")]


def test_comments_and_heartbeats_are_skipped_and_counted():
    decoder = SSEDecoder()
    events = decoder.feed(": heartbeat\r\n\r\ndata: x\r\n: heartbeat\r\n\r\n:\r\n\r\n")
    assert events == [ServerSentEvent("message", "x")]
    assert decoder.comments == 3


def test_id_after_data_and_id_persists():
    events = decode(["data: 1\r\nid: 7\r\n\r\ndata: 2\r\n\r\nid: 8\r\ndata: 3\r\n\r\n"])
    assert [(e.data, e.id) for e in events] == [("1", "7"), ("2", "7"), ("3", "8")]


def test_id_with_nul_is_ignored():
    assert decode(["id: a\x00b\ndata: x\n\n"])[0].id is None


def test_multiline_data():
    assert decode(["data: one\ndata:two\ndata:  three\n\n"]) == [ServerSentEvent("message", "one\ntwo\n three")]


def test_field_without_colon():
    # "data" alone is a data field with an empty value; an unknown bare field is ignored
    assert decode(["data\ndata\n\n"]) == [ServerSentEvent("message", "\n")]
    assert decode(["bogus\ndata: x\n\n"]) == [ServerSentEvent("message", "x")]


def test_leading_space_stripped_only_once():
    assert decode(["data:   x \n\n"]) == [ServerSentEvent("message", "  x ")]
    assert decode(["event:  values\ndata: 1\n\n"])[0].event == " values"


def test_event_error():
    [event] = decode(['event: error\r\ndata: {"error": "boom"}\r\n\r\n'])
    assert event.event == "error" and json.loads(event.data) == {"error": "boom"}


def test_retry_field():
    [event] = decode(["retry: 1500\ndata: x\n\n"])
    assert event.retry == 1500
    assert decode(["retry: soon\ndata: x\n\n"])[0].retry is None


def test_bom_at_stream_start():
    assert decode(["\ufeffdata: x\n\n"]) == [ServerSentEvent("message", "x")]


def test_blank_lines_without_fields_dispatch_nothing():
    assert decode(["\n\n\r\n\r\r"]) == []


def test_close_flushes_unterminated_event():
    decoder = SSEDecoder()
    assert decoder.feed("event: values\ndata: {\"a\"") == []
    assert decoder.feed(": 1}") == []
    assert decoder.close() == [ServerSentEvent("values", '{"a": 1}')]


def test_feed_empty_string():
    decoder = SSEDecoder()
    assert decoder.feed("") == []
    assert decoder.close() == []


def test_many_lines_in_one_chunk():
    payload = "".join(f"data: {i}\n\n" for i in range(20_000))
    events = decode([payload])
    assert len(events) == 20_000 and events[-1].data == "19999"


def test_long_line_fed_one_character_at_a_time():
    payload = "data: " + "x" * 25_000 + "\r\n\r\n"
    decoder = SSEDecoder()
    events = [e for ch in payload for e in decoder.feed(ch)]
    assert [len(e.data) for e in events] == [25_000] and decoder.close() == []
