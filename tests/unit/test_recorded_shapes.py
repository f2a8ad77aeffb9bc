"""The recorded fixtures still look like what the live server sends, and are stored compact and once.

Each recorder (tests/unit/fixtures/record_all.py) runs against the session's agent server; the keys and
value types of what it records (tests/unit/json_shape.py: recursively, ids and list lengths aside) must
match the stored fixture's. When an upgrade of the server's packages changes what it sends, this fails
naming each path, and `./sw record-fixtures` records them anew.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from json_shape import Shape, differences, id_free, merge, shape
from recorded import HISTORY, load_history, pack_history, unpack_history

from sitewalk.agentserver.sse import SSEDecoder

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import record_all  # noqa: E402

HISTORIES = sorted(p.name for p in HISTORY.glob("*.json"))
RECORDERS = sorted(record_all.RECORDERS)


def sse_shape(raw: bytes) -> Shape:
    """One shape per event name (ids taken out), merged over every event of that name."""
    decoder = SSEDecoder()
    by_event: dict[str, Shape] = {}
    for event in decoder.feed(raw.decode("utf-8")) + decoder.close():
        if event.data:
            name, found = id_free(event.event or "message"), shape(json.loads(event.data))
            by_event[name] = merge(by_event[name], found) if name in by_event else found
    return {"types": ["stream"], "keys": by_event}


def stored_shape(file_name: str) -> Shape:
    if file_name.endswith(".sse"):
        return sse_shape((FIXTURES / file_name).read_bytes())
    return shape(load_history(file_name))


def live_shape(content: Any) -> Shape:
    return sse_shape(content) if isinstance(content, bytes) else shape(content)


@pytest.mark.parametrize("recorder", RECORDERS)
def test_the_live_server_still_sends_the_shapes_of_the_recorded_fixtures(recorder, agent_server):
    recorded = record_all.record(recorder, agent_server)
    assert recorded
    problems = [f"{file_name}: {problem}" for file_name, content in recorded.items()
                for problem in differences(stored_shape(file_name), live_shape(content))]
    assert not problems, ("the live server no longer sends what the recorded fixtures hold; "
                          "record them anew with ./sw record-fixtures:\n" + "\n".join(problems))


def test_a_key_gone_a_new_key_and_a_changed_type_are_each_named():
    stored = shape({"run": {"id": "r1", "status": "ok", "steps": [{"n": 1}, {"n": 2}]}})
    live = shape({"run": {"id": "r2", "status": 3, "steps": [{"n": 1, "extra": None}]}})
    assert differences(stored, stored) == []
    assert differences(stored, live) == [
        "$.run.status: recorded string, live number",
        "$.run.steps[].extra: new on the live server",
    ]
    assert differences(live, stored)[-1] == "$.run.steps[].extra: recorded, gone from the live server"


def test_values_list_lengths_and_ids_in_keys_are_not_part_of_the_shape():
    one = {"3f2b9c1e-8a7d-4c5e-9f10-0a1b2c3d4e5f": {"tool_call": {"id": "call_abc"}}, "items": [1, 2, 3]}
    other = {"0c0ffee0-8a7d-4c5e-9f10-0a1b2c3d4e5f": {"tool_call": {"id": "call_xyz"}}, "items": [9]}
    assert shape(one) == shape(other)
    assert list(shape(one)["keys"]) == ["<id>", "items"]
    assert differences(shape({"a": None}), shape({"a": {"b": 1}})) == ["$.a: recorded null, live object",
                                                                       "$.a.b: new on the live server"]


def test_an_sse_stream_is_shaped_per_event_name_with_ids_taken_out_of_names():
    raw = (b'event: metadata\r\ndata: {"run_id": "r"}\r\n\r\n: heartbeat\r\n\r\n'
           b'event: updates|tools:3f2b9c1e-8a7d-4c5e-9f10-0a1b2c3d4e5f\r\ndata: {"x": [1]}\r\n\r\n')
    assert sorted(sse_shape(raw)["keys"]) == ["metadata", "updates|tools:<id>"]


@pytest.mark.parametrize("name", HISTORIES)
def test_a_stored_history_keeps_each_checkpoint_once_and_compact(name):
    text = (HISTORY / name).read_text("utf-8")
    packed = json.loads(text)
    assert text.count("\n") == 1 and ": " not in text[:200]  # one line, no indentation
    data = unpack_history(packed)
    entries = [e for key in ("pages", "nested_pages") for page in data.get(key, []) for e in page] + data.get("all", [])
    assert len(packed["checkpoints"]) == len({e["checkpoint"]["checkpoint_id"] for e in entries})
    assert pack_history(data) == packed


def test_packing_refuses_two_different_entries_under_one_checkpoint_id():
    entry = {"checkpoint": {"checkpoint_id": "c1"}, "values": {"n": 1}}
    assert unpack_history(pack_history({"pages": [[entry]], "all": [entry]})) == {"pages": [[entry]], "all": [entry]}
    with pytest.raises(ValueError, match="c1"):
        pack_history({"pages": [[entry]], "all": [{**entry, "values": {"n": 2}}]})
