from sitewalk.streaming import CallState, RunAssembler


def chunk(message_id, content="", tool_chunks=(), last=False):
    data = {"type": "AIMessageChunk", "id": message_id, "content": content, "tool_call_chunks": list(tool_chunks)}
    if last:
        data["chunk_position"] = "last"
    return [data, {"langgraph_node": "agent"}]


def test_arguments_are_assembled_per_call_not_globally():
    asm = RunAssembler()
    asm.feed(chunk("m1", "Look", [{"index": 0, "id": "a", "name": "read_local_draft", "args": '{"inspection_'}]))
    asm.feed(chunk("m1", "ing", [{"index": 1, "id": "b", "name": "render_ui", "args": '{"root":'}]))
    asm.feed(chunk("m1", "", [{"index": 0, "id": None, "name": None, "args": 'id": "x"}'}]))
    asm.feed(chunk("m1", "", [{"index": 1, "args": ' "card", "elements": {}}'}], last=True))
    a, b = asm.call_by_id("a"), asm.call_by_id("b")
    assert a.name == "read_local_draft" and a.args == {"inspection_id": "x"} and a.state == CallState.args_ready
    assert b.name == "render_ui" and b.args == {"root": "card", "elements": {}}
    assert asm.texts["m1"].text == "Looking"


def test_a_message_text_is_done_with_its_last_chunk_or_at_the_end_of_the_stream():
    asm = RunAssembler()
    [first] = asm.feed(chunk("m1", "Look"))
    assert first.done is False
    assert [(c.id, c.done) for c in asm.feed(chunk("m1", "ing", last=True))] == [("m1", True), ("m1", True)]
    asm.feed(chunk("m2", "cut off"))
    assert [(c.id, c.done) for c in asm.finish_message()] == [("m2", True)]
    assert asm.finish_message() == []  # once


def test_same_index_in_two_messages_are_two_calls():
    asm = RunAssembler()
    asm.feed(chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": "{}"}], last=True))
    asm.feed(chunk("m2", tool_chunks=[{"index": 0, "id": "b", "name": "t", "args": '{"k": 1}'}], last=True))
    assert asm.call_by_id("a").args == {} and asm.call_by_id("b").args == {"k": 1}


def test_incomplete_args_stay_collecting():
    asm = RunAssembler()
    asm.feed(chunk("m1", tool_chunks=[{"index": 0, "id": "a", "name": "t", "args": '{"k": '}]))
    assert asm.finish_message() == [] and asm.call_by_id("a").state == CallState.collecting_args


def whole(message_id, content="", tool_calls=()):
    """A message a node wrote whole: the server sends it once, as type `ai`, when the node ends."""
    return [{"type": "ai", "id": message_id, "content": content, "tool_calls": list(tool_calls)},
            {"langgraph_node": "await_action"}]


def test_a_message_a_node_wrote_whole_is_shown_as_one_finished_text():
    asm = RunAssembler()
    [text] = asm.feed(whole("m9", "Work order work-order:inspection-42:risk-1 created."))
    assert (text.id, text.text, text.done) == ("m9", "Work order work-order:inspection-42:risk-1 created.", True)
    assert asm.finish_message() == []


def test_a_whole_message_that_was_streamed_before_is_not_taken_twice():
    asm = RunAssembler()
    asm.feed(chunk("m1", "Looking", last=True))
    assert asm.feed(whole("m1", "Looking")) == []
    assert asm.texts["m1"].text == "Looking"


def test_a_whole_message_with_a_tool_call_gives_the_call_ready():
    asm = RunAssembler()
    changed = asm.feed(whole("m2", "", [{"id": "c1", "name": "read_local_draft", "args": {"inspection_id": "x"}}]))
    [call] = changed
    assert (call.id, call.name, call.state, call.args) == ("c1", "read_local_draft", CallState.args_ready,
                                                           {"inspection_id": "x"})
