"""The run stream's one reader (`calls.run_stream.RunStreamCalls`): text per message, arguments per call, and
what a take hands the view (one read-only view per changed message or call, its text added since)."""

from sitewalk.agentserver.client import StreamPart
from sitewalk.calls.lifecycle import CallStatus
from sitewalk.calls.run_stream import RunStreamCalls
from sitewalk.calls.view import CallView, TextView


def chunk(message_id, content="", tool_chunks=(), last=False):
    data = {"type": "AIMessageChunk", "id": message_id, "content": content, "tool_call_chunks": list(tool_chunks)}
    if last:
        data["chunk_position"] = "last"
    return [data, {"langgraph_node": "agent"}]


def fed(reader, *payloads, event="messages"):
    for payload in payloads:
        reader.feed(StreamPart(event, payload))
    return reader.take()


def call_by_id(reader, call_id):
    return next(c for c in reader.assembler if c.call_id == call_id)


def test_arguments_are_assembled_per_call_not_globally():
    reader = RunStreamCalls()
    fed(reader,
        chunk("m1", "Look", [{"index": 0, "id": "a", "name": "read_local_draft", "args": '{"inspection_'}]),
        chunk("m1", "ing", [{"index": 1, "id": "b", "name": "render_ui", "args": '{"root":'}]),
        chunk("m1", "", [{"index": 0, "id": None, "name": None, "args": 'id": "x"}'}]),
        chunk("m1", "", [{"index": 1, "args": ' "card", "elements": {}}'}], last=True))
    a, b = call_by_id(reader, "a"), call_by_id(reader, "b")
    assert a.name == "read_local_draft" and a.args == {"inspection_id": "x"} and a.status is CallStatus.ARGS_READY
    assert b.name == "render_ui" and b.args == {"root": "card", "elements": {}}
    assert reader.text_of((), "m1") == "Looking"


def test_a_take_gives_each_changed_message_and_call_once_with_all_it_added():
    reader = RunStreamCalls()
    views = fed(reader,
                chunk("m1", "Lo", [{"index": 0, "id": "a", "name": "t", "args": '{"k"'}]),
                chunk("m1", "ok", [{"index": 0, "args": ": 1"}]))
    assert views == [TextView("m1", "Look", False),
                     CallView("a", "t", CallStatus.COLLECTING_ARGS, (), "m1", 0, '{"k": 1')]
    assert reader.take() == []  # nothing new: nothing handed on again
    call, text = fed(reader, chunk("m1", "", [{"index": 0, "args": "}"}], last=True))
    assert text == TextView("m1", "", True)  # the message ended: its words are done
    assert (call.delta, call.status, call.args, call.finished) == ("}", CallStatus.ARGS_READY, {"k": 1}, True)


def test_a_message_text_is_done_with_its_last_chunk_or_at_the_end_of_the_stream():
    reader = RunStreamCalls()
    [first] = fed(reader, chunk("m1", "Look"))
    assert first.done is False
    assert fed(reader, chunk("m1", "ing", last=True)) == [TextView("m1", "ing", True)]
    fed(reader, chunk("m2", "cut off"))
    assert reader.end_all() == [TextView("m2", "", True)]
    assert reader.end_all() == []  # once


def test_same_index_in_two_messages_are_two_calls():
    reader = RunStreamCalls()
    fed(reader, chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": "{}"}], last=True),
        chunk("m2", tool_chunks=[{"index": 0, "id": "b", "name": "t", "args": '{"k": 1}'}], last=True))
    assert call_by_id(reader, "a").args == {} and call_by_id(reader, "b").args == {"k": 1}


def test_incomplete_args_fail_the_call_when_the_stream_ends_and_keep_their_text():
    reader = RunStreamCalls()
    fed(reader, chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": '{"k": '}]))
    [call] = reader.end_all()
    assert call.status is CallStatus.FAILED and call.args is None and "not JSON" in (call.error or "")
    assert call_by_id(reader, "a").args_text == '{"k": '


def whole(message_id, content="", tool_calls=()):
    """A message a node wrote whole: the server sends it once, as type `ai`, when the node ends."""
    return [{"type": "ai", "id": message_id, "content": content, "tool_calls": list(tool_calls)},
            {"langgraph_node": "await_action"}]


def test_a_message_a_node_wrote_whole_is_shown_as_one_finished_text():
    reader = RunStreamCalls()
    [text] = fed(reader, whole("m9", "Work order work-order:inspection-42:risk-1 created."))
    assert text == TextView("m9", "Work order work-order:inspection-42:risk-1 created.", True)
    assert reader.end_all() == []


def test_a_whole_message_that_was_streamed_before_is_not_taken_twice():
    reader = RunStreamCalls()
    fed(reader, chunk("m1", "Looking", last=True))
    assert fed(reader, whole("m1", "Looking")) == []
    assert reader.text_of((), "m1") == "Looking"


def test_a_whole_message_with_a_tool_call_gives_the_call_ready_with_its_arguments_as_a_snapshot():
    reader = RunStreamCalls()
    [call] = fed(reader, whole("m2", "", [{"id": "c1", "name": "read_local_draft", "args": {"inspection_id": "x"}}]))
    assert (call.call_id, call.name, call.status, call.args) == ("c1", "read_local_draft", CallStatus.ARGS_READY,
                                                                 {"inspection_id": "x"})
    assert call.replaced and call.delta == '{"inspection_id":"x"}'


def test_a_fragment_after_its_message_ended_is_not_merged():
    reader = RunStreamCalls()
    fed(reader, chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": "{}"}], last=True))
    assert fed(reader, chunk("m1", tool_chunks=[{"index": 0, "args": "x"}])) == []
    assert call_by_id(reader, "a").args_text == "{}"


def test_views_are_read_only():
    import dataclasses

    import pytest

    reader = RunStreamCalls()
    [view] = fed(reader, chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": "{"}]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.delta = "x"
