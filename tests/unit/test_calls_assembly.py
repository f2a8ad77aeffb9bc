"""Tool-call arguments assembled per (namespace, call id): synthetic streams and recorded real ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitewalk.agentserver.client import StreamPart
from sitewalk.agentserver.sse import SSEDecoder
from sitewalk.calls.assembly import AssemblyError, CallAssembler
from sitewalk.calls.lifecycle import CallStatus
from sitewalk.calls.run_stream import RunStreamCalls, namespace_of

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = {  # what the scripted model's `script: parallel` asks for (py_src/sitewalk_agent/demo/scripted_model.py)
    "read_local_draft": {"inspection_id": "inspection-42"},
    "get_current_location": {"purpose": "Record where inspection inspection-42 is carried out.", "timeout_ms": 10000},
}


def sse(name: str) -> list[tuple[str, Any]]:
    decoder = SSEDecoder()
    events = decoder.feed((FIXTURES / name).read_bytes().decode()) + decoder.close()
    return [(e.event, json.loads(e.data)) for e in events if e.data]


def chunk(message_id: str, *fragments: dict[str, Any], last: bool = False) -> list[Any]:
    return [{"type": "AIMessageChunk", "id": message_id, "content": "", "tool_call_chunks": list(fragments),
             "chunk_position": "last" if last else None}, {}]


def frag(index: int, args: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    return {"index": index, "args": args, "id": call_id, "name": name, "type": "tool_call_chunk"}


# -- synthetic: the run stream -------------------------------------------------------------------

def test_interleaved_parallel_calls_across_two_namespaces_never_mix():
    reader = RunStreamCalls()
    main, worker = "messages", "messages|worker:7"
    # the same call id and the same index in two namespaces, fragments interleaved
    steps = [
        (main, chunk("m1", frag(0, '{"city":"', "c1", "weather"))),
        (worker, chunk("m2", frag(0, '{"q":"', "c1", "search"))),
        (main, chunk("m1", frag(1, '{"n":', "c2", "count"))),
        (worker, chunk("m2", frag(0, 'LangChain"}'))),
        (main, chunk("m1", frag(0, 'Beijing"}'))),
        (main, chunk("m1", frag(1, "3}"), last=True)),
        (worker, chunk("m2", last=True)),
    ]
    for event, data in steps:
        reader.feed(StreamPart(event, data))
    reader.take()
    got = reader.assembler.finished_args()
    assert got == {
        ((), "c1"): {"city": "Beijing"},
        ((), "c2"): {"n": 3},
        (("worker:7",), "c1"): {"q": "LangChain"},
    }
    names = {key: c.name for key, c in reader.assembler.calls.items()}
    assert names == {((), "c1"): "weather", ((), "c2"): "count", (("worker:7",), "c1"): "search"}
    assert all(c.status is CallStatus.ARGS_READY for c in reader.assembler)


def test_namespace_of_event_names():
    assert namespace_of("messages") == ()
    assert namespace_of("messages|parent:1|child:2") == ("parent:1", "child:2")


def test_a_call_stays_collecting_until_its_message_ends():
    reader = RunStreamCalls()
    reader.feed(StreamPart("messages", chunk("m1", frag(0, '{"a":1}', "c1", "t"))))
    reader.take()
    call = reader.assembler.calls[((), "c1")]
    assert call.status is CallStatus.COLLECTING_ARGS and call.args is None  # complete JSON is not "ready"
    reader.feed(StreamPart("messages", chunk("m1", last=True)))
    updates = reader.take()
    assert [u.finished for u in updates] == [True] and call.args == {"a": 1}


def test_a_whole_message_is_a_snapshot_and_does_not_repeat_a_streamed_call():
    reader = RunStreamCalls()
    reader.feed(StreamPart("messages", chunk("m1", frag(0, '{"a":', "c1", "t"))))
    reader.feed(StreamPart("messages", chunk("m1", frag(0, "1}"), last=True)))
    reader.take()
    # a node's whole message repeats a streamed call: it is not taken again (another message id: no text)
    whole = {"type": "ai", "id": "m2", "tool_calls": [{"id": "c1", "name": "t", "args": {"a": 1}},
                                                       {"id": "c9", "name": "u", "args": {"b": 2}}]}
    reader.feed(StreamPart("messages", [whole, {}]))
    updates = reader.take()
    assert [(u.call_id, u.replaced, u.finished, u.delta) for u in updates] == [("c9", True, True, '{"b":2}')]
    assert reader.assembler.finished_args() == {((), "c1"): {"a": 1}, ((), "c9"): {"b": 2}}


def test_a_fragment_of_a_call_that_never_announced_itself_is_not_guessed():
    reader = RunStreamCalls()
    reader.feed(StreamPart("messages", chunk("m1", frag(0, '{"a":1}'))))
    assert reader.take() == []
    assert reader.assembler.calls == {}


def test_end_all_finishes_calls_of_a_stream_that_ended_without_a_last_chunk():
    reader = RunStreamCalls()
    reader.feed(StreamPart("messages", chunk("m1", frag(0, '{"a":1}', "c1", "t"))))
    assert [u.args for u in reader.end_all()] == [{"a": 1}]


def test_a_chunk_missing_some_keys_is_read_as_one_with_all_of_them():
    """Chunks as LangGraph sends them (every key) are read on the fast path; a chunk missing keys, or sent
    alone (not `[chunk, metadata]`), or ending by its `finish_reason`, is read the same way, one by one."""
    def views(events: list[tuple[str, Any]]) -> list[Any]:
        reader = RunStreamCalls()
        for event, data in events:
            reader.feed(StreamPart(event, data))
        return reader.take()

    full = [("messages", chunk("m1", frag(0, '{"a":', "c1", "t"))), ("messages", chunk("m1", frag(0, "1}"))),
            ("messages", [{**chunk("m1")[0], "content": "done"}, {}]), ("messages", chunk("m1", last=True))]
    sparse = [("messages", [{"type": "AIMessageChunk", "id": "m1", "tool_call_chunks": [frag(0, '{"a":', "c1", "t")]}]),
              ("messages", {"type": "AIMessageChunk", "id": "m1", "tool_call_chunks": [frag(0, "1}")]}),
              ("messages", [{"type": "AIMessageChunk", "id": "m1", "content": "done"}, {}]),
              ("messages", [{"type": "AIMessageChunk", "id": "m1", "response_metadata": {"finish_reason": "stop"}}]),
              ("messages", ["not a chunk"]), ("messages", [])]
    expected = views(full)
    assert [(getattr(v, "call_id", None), v.delta) for v in expected] == [("c1", '{"a":1}'), (None, "done")]
    assert views(sparse) == expected


# -- synthetic: snapshot vs delta, bad arguments -------------------------------------------

def test_snapshot_replaces_and_delta_appends():
    calls = CallAssembler()
    calls.delta((), "c1", '{"city":"Bei')
    update = calls.snapshot((), "c1", '{"city":"Beij')  # the old protocol's "args so far"
    assert update.replaced and update.delta == '{"city":"Beij'
    calls.delta((), "c1", 'ing"}')
    calls.finish((), "c1")
    assert calls.calls[((), "c1")].args == {"city": "Beijing"}


def test_two_snapshots_treated_as_deltas_would_not_parse():
    """The article's warning, made concrete: appending cumulative snapshots breaks the JSON."""
    snapshots = ['{"city":"Bei', '{"city":"Beijing"}']
    with pytest.raises(ValueError):
        json.loads("".join(snapshots))
    calls = CallAssembler()
    for text in snapshots:
        calls.snapshot((), "c1", text)
    calls.finish((), "c1")
    assert calls.calls[((), "c1")].args == {"city": "Beijing"}


@pytest.mark.parametrize(("text", "reason"), [('{"a":', "not JSON"), ("[1, 2]", "JSON list"), ('"x"', "JSON str")])
def test_unusable_finished_arguments_fail_the_call_with_a_reason(text, reason):
    calls = CallAssembler()
    calls.delta((), "c1", text)
    calls.finish((), "c1")
    call = calls.calls[((), "c1")]
    assert call.status is CallStatus.FAILED and call.args is None and reason in (call.error or "")
    assert call.lifecycle.path == [CallStatus.COLLECTING_ARGS, CallStatus.ARGS_READY, CallStatus.FAILED]
    assert call.args_text == text  # nothing lost: the raw text stays for the view


def test_a_fragment_after_the_message_ended_is_a_typed_error():
    calls = CallAssembler()
    calls.delta((), "c1", "{}")
    calls.finish((), "c1")
    with pytest.raises(AssemblyError):
        calls.delta((), "c1", "x")
    assert calls.finish((), "c1") is None  # finishing twice changes nothing


# -- recorded real streams (tests/unit/fixtures/record_calls.py) ----------------------------------------

def _by_name(assembler: CallAssembler) -> dict[str, dict[str, Any] | None]:
    return {c.name or "?": c.args for c in assembler}


def test_recorded_run_stream_assembles_both_parallel_calls():
    reader = RunStreamCalls()
    for event, data in sse("calls_parallel_runs.sse"):
        if event.startswith("messages"):
            reader.feed(StreamPart(event, data))
    reader.take()
    assert _by_name(reader.assembler) == EXPECTED
    ids = {c.call_id for c in reader.assembler}
    assert len(ids) == 2 and all(i.startswith("call_") for i in ids)
