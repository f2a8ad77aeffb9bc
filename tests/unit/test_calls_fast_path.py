"""The run stream's common event (one more fragment of a named call, in the message before it) is appended
on `RunStreamCalls._assemble`'s fast path; every other shape must leave it for the general path and come
out exactly as before. Each case is read twice: in one take (after the first event, the fast path reads
what it can) and with a take after every event (each take's first event is read by the general path, so
that reading never uses the fast path), and both must give the expected outcome."""

from __future__ import annotations

from typing import Any

import pytest

from sitewalk.agentserver.client import StreamPart
from sitewalk.calls.lifecycle import CallStatus
from sitewalk.calls.run_stream import RunStreamCalls
from sitewalk.calls.view import CallView, TextView

MAIN = "messages"


def chunk(message_id: str = "m1", *fragments: Any, content: Any = "", position: str | None = None,
          kind: str = "AIMessageChunk", **extra: Any) -> list[Any]:
    return [{"type": kind, "id": message_id, "content": content, "tool_call_chunks": list(fragments),
             "chunk_position": position, **extra}, {}]


def frag(index: Any, args: Any, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    return {"index": index, "args": args, "id": call_id, "name": name, "type": "tool_call_chunk"}


def opened(*more: tuple[str, list[Any]]) -> list[tuple[str, list[Any]]]:
    """Call c1 (index 0, named) opened and one plain fragment of it (the fast path's own), then `more`."""
    return [(MAIN, chunk("m1", frag(0, '{"a":', "c1", "t"))), (MAIN, chunk("m1", frag(0, '"x'))), *more]


def read(events: list[tuple[str, list[Any]]], take_each: bool) -> tuple[dict[Any, Any], dict[Any, str]]:
    """What the reader made of the events: each call's state and each entry's text as the views told it."""
    reader = RunStreamCalls()
    told: dict[Any, str] = {}
    for event, data in events:
        reader.feed(StreamPart(event, data))
        if take_each:
            _tell(reader.take(), told)
    _tell(reader.take(), told)
    calls = {key: (c.name, c.status, c.args, c.args_text, c.message_id, c.index)
             for key, c in reader.assembler.calls.items()}
    texts = {key: (m.text, m.done) for key, m in reader.messages.items()}
    return {"calls": calls, "texts": texts}, told


def _tell(views: list[CallView | TextView], told: dict[Any, str]) -> None:
    for view in views:
        key = ("call", view.namespace, view.call_id) if isinstance(view, CallView) else ("text", view.message_id)
        told[key] = view.delta if isinstance(view, CallView) and view.replaced else told.get(key, "") + view.delta


def both(events: list[tuple[str, list[Any]]]) -> dict[Any, Any]:
    """The outcome, the same whether the fast path read the events or not."""
    fast, fast_told = read(events, take_each=False)
    slow, slow_told = read(events, take_each=True)
    assert fast == slow and fast_told == slow_told
    return fast


def test_plain_fragments_of_interleaved_calls_are_appended_in_one_take():
    events = [(MAIN, chunk("m1", frag(0, '{"a":', "c1", "t"))), (MAIN, chunk("m1", frag(1, '{"b":', "c2", "u"))),
              (MAIN, chunk("m1", frag(0, "1}"))), (MAIN, chunk("m1", frag(1, "2}"))),
              (MAIN, chunk("m1", position="last"))]
    out = both(events)
    assert {k[1]: v[2] for k, v in out["calls"].items()} == {"c1": {"a": 1}, "c2": {"b": 2}}
    reader = RunStreamCalls()
    for event, data in events[:4]:
        reader.feed(StreamPart(event, data))
    views = reader.take()  # one view per call, in the order each was first changed, all its text
    assert [(v.call_id, v.delta) for v in views if isinstance(v, CallView)] == [("c1", '{"a":1}'), ("c2", '{"b":2}')]


def test_words_with_a_fragment_keep_both():
    out = both(opened((MAIN, chunk("m1", frag(0, '"}'), content="Saying")), (MAIN, chunk("m1", position="last"))))
    assert out["texts"][((), "m1")] == ("Saying", True)
    assert out["calls"][((), "c1")][2] == {"a": "x"}


def test_a_last_chunk_with_a_fragment_ends_the_message():
    out = both(opened((MAIN, chunk("m1", frag(0, '"}'), position="last"))))
    assert out["calls"][((), "c1")][1:3] == (CallStatus.ARGS_READY, {"a": "x"})


def test_a_finish_reason_with_a_fragment_ends_the_message():
    events = opened((MAIN, chunk("m1", frag(0, '"}'), response_metadata={"finish_reason": "tool_calls"})),
                    (MAIN, chunk("m1", frag(0, "late"))))  # after its end: not merged
    out = both(events)
    assert out["calls"][((), "c1")][1:4] == (CallStatus.ARGS_READY, {"a": "x"}, '{"a":"x"}')


def test_empty_response_metadata_is_no_end():
    out = both(opened((MAIN, chunk("m1", frag(0, '"}'), response_metadata={}))))
    assert out["calls"][((), "c1")][1] is CallStatus.COLLECTING_ARGS


def test_a_fragment_after_its_message_ended_is_not_merged_even_in_the_same_take():
    out = both(opened((MAIN, chunk("m1", position="last")), (MAIN, chunk("m1", frag(0, "more")))))
    assert out["calls"][((), "c1")][3] == '{"a":"x'


def test_another_message_with_the_same_index_is_not_the_open_call():
    out = both(opened((MAIN, chunk("m2", frag(0, "stray"))), (MAIN, chunk("m1", frag(0, '"}'), position="last"))))
    assert out["calls"][((), "c1")][3] == '{"a":"x"}' and ((), "m2") in out["texts"]


def test_another_namespace_with_the_same_message_and_index_is_not_the_open_call():
    out = both(opened(("messages|sub:1", chunk("m1", frag(0, "stray"))), (MAIN, chunk("m1", frag(0, '"}')))))
    assert out["calls"][((), "c1")][3] == '{"a":"x"}' and (("sub:1",), "m1") in out["texts"]


@pytest.mark.parametrize("kind", ["tool", "human", None])
def test_a_message_of_another_type_is_not_read_as_a_chunk(kind):
    out = both(opened((MAIN, chunk("m1", frag(0, "stray"), kind=kind)), (MAIN, chunk("m1", frag(0, '"}')))))
    assert out["calls"][((), "c1")][3] == '{"a":"x"}'


def test_an_ai_type_other_than_a_chunk_is_read_as_one():
    out = both(opened((MAIN, chunk("m1", frag(0, '"}'), kind="AIMessage"))))
    assert out["calls"][((), "c1")][3] == '{"a":"x"}'


def test_several_fragments_in_one_chunk_are_all_appended():
    events = [(MAIN, chunk("m1", frag(0, '{"a":', "c1", "t"), frag(1, '{"b":', "c2", "u"))),
              (MAIN, chunk("m1", frag(0, "1}"), frag(1, "2}")))]
    out = both(events)
    assert [v[3] for v in out["calls"].values()] == ['{"a":1}', '{"b":2}']


def test_an_index_that_is_no_int_is_read_as_index_0():
    events = [(MAIN, chunk("m1", frag(0, '{"a":', "c1", "t"))), (MAIN, chunk("m1", frag(1, '{"b":', "c2", "u"))),
              (MAIN, chunk("m1", frag(True, "1}")))]  # True == 1 as a dict key; the reader files it under 0
    out = both(events)
    assert out["calls"][((), "c1")][3] == '{"a":1}' and out["calls"][((), "c2")][3] == '{"b":'


def test_a_call_named_by_a_later_fragment_gets_its_name():
    events = [(MAIN, chunk("m1", frag(0, '{"a":', "c1"))), (MAIN, chunk("m1", frag(0, "1"))),
              (MAIN, chunk("m1", frag(0, "}", name="late_name")))]
    out = both(events)
    assert out["calls"][((), "c1")][0] == "late_name" and out["calls"][((), "c1")][3] == '{"a":1}'


@pytest.mark.parametrize("args", [None, ""])
def test_a_fragment_without_arguments_adds_nothing(args):
    out = both(opened((MAIN, chunk("m1", frag(0, args))), (MAIN, chunk("m1", frag(0, '"}')))))
    assert out["calls"][((), "c1")][3] == '{"a":"x"}'


def test_a_fragment_of_an_index_never_opened_is_not_guessed():
    out = both(opened((MAIN, chunk("m1", frag(3, "stray"))), (MAIN, chunk("m1", frag(0, '"}')))))
    assert list(out["calls"]) == [((), "c1")] and out["calls"][((), "c1")][3] == '{"a":"x"}'


@pytest.mark.parametrize("bad", [
    [{"type": "AIMessageChunk", "id": "m1", "tool_call_chunks": [frag(0, "k")]}, {}],  # keys missing
    {"type": "AIMessageChunk", "id": "m1", "content": "", "tool_call_chunks": [frag(0, "k")], "chunk_position": None},
    chunk("m1", {"index": 0, "args": "k"}),  # a fragment without id and name keys
    ["not a chunk"], [], None, "text",
])
def test_odd_events_between_plain_ones_read_as_before(bad):
    """Chunks missing keys or sent alone are read one by one (`_fields`), and what is no chunk is skipped."""
    both(opened((MAIN, bad), (MAIN, chunk("m1", frag(0, '"}'), position="last"))))


@pytest.mark.parametrize("fragments", [["not a fragment"], [3, None], "a string, not a list", {"index": 0}])
def test_fragments_that_are_no_dicts_are_passed_over_and_the_call_goes_on(fragments):
    """A chunk whose `tool_call_chunks` is not a list of dicts cannot be placed: it is passed over (it used to
    raise AttributeError out of the take), and the open call is assembled from its own fragments."""
    odd = [{"type": "AIMessageChunk", "id": "m1", "content": "", "tool_call_chunks": fragments,
            "chunk_position": None}, {}]
    out = both(opened((MAIN, odd), (MAIN, chunk("m1", frag(0, '"}'), position="last"))))
    assert out["calls"][((), "c1")][1:4] == (CallStatus.ARGS_READY, {"a": "x"}, '{"a":"x"}')
