import asyncio
import json

import pytest
from memory_storage import MemoryStore

from sitewalk.headless import (
    HeadlessToolRegistry,
    draft_key,
    read_local_draft,
)
from sitewalk_shared.contracts.tools import ReadLocalDraftResult


def run(coro):
    return asyncio.run(coro)


def interrupt_for(name, args, call_id="call_1"):
    return {"type": "tool", "tool_call": {"id": call_id, "name": name, "args": args}}


DRAFT = {"site": "Pier 4", "inspector": "Ana", "findings": ["rust on rail"], "risk": "high"}


@pytest.fixture
def registry():
    store = MemoryStore({draft_key("inspection-42"): json.dumps(DRAFT), draft_key("broken"): "{not json",
                         draft_key("wrong-shape"): json.dumps({"site": 5})})
    reg = HeadlessToolRegistry()
    reg.register("read_local_draft", read_local_draft(store))
    return reg


def test_answer_is_keyed_by_tool_call_id_and_holds_the_draft(registry):
    answer = run(registry.answer(interrupt_for("read_local_draft", {"inspection_id": "inspection-42"})))
    envelope = answer["call_1"]
    assert envelope["ok"] is True
    assert envelope["result"]["site"] == "Pier 4" and envelope["result"]["inspection_id"] == "inspection-42"


@pytest.mark.parametrize(
    "args, code",
    [
        ({"inspection_id": "nobody"}, "not_found"),
        ({"inspection_id": "broken"}, "corrupt_data"),
        ({"inspection_id": "wrong-shape"}, "corrupt_data"),
        ({"inspection_id": "bad id with spaces"}, "invalid_args"),
        ({"inspection_id": "inspection-42", "extra": 1}, "invalid_args"),
    ],
)
def test_each_failure_is_a_typed_envelope(registry, args, code):
    envelope = run(registry.run({"id": "c", "name": "read_local_draft", "args": args}))
    assert envelope["ok"] is False and envelope["error"]["code"] == code


def test_corrupt_draft_names_its_key(registry):
    envelope = run(registry.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "broken"}}))
    assert envelope["error"]["detail"]["key"] == "sitewalk:draft:broken"


def test_unknown_tool_is_not_implemented_at_once(registry):
    envelope = run(registry.run({"id": "c9", "name": "launch_drone", "args": {}}))
    assert envelope["error"]["code"] == "not_implemented"
    assert envelope["error"]["detail"]["implemented"] == ["read_local_draft"]


def test_hanging_tool_times_out_and_raising_tool_is_internal():
    reg = HeadlessToolRegistry(timeout_s=0.05)

    async def hang(args):
        await asyncio.sleep(10)

    reg.register("read_local_draft", hang)
    answer = run(reg.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "a"}}))
    assert answer["error"]["code"] == "timeout"

    async def boom(args):
        raise RuntimeError("bug")

    reg.register("read_local_draft", boom)
    envelope = run(reg.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "a"}}))
    assert envelope["error"]["code"] == "internal" and "bug" in envelope["error"]["message"]


def test_result_outside_the_contract_is_serialization_failed():
    reg = HeadlessToolRegistry()

    async def wrong(args):
        return {"site": "x", "risk": "apocalyptic"}

    reg.register("read_local_draft", wrong)
    envelope = run(reg.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "a"}}))
    assert envelope["error"]["code"] == "serialization_failed"


def test_oversized_result_is_serialization_failed(monkeypatch):
    import sitewalk.headless.registry as registry_module

    monkeypatch.setattr(registry_module, "MAX_RESULT_BYTES", 200)
    reg = HeadlessToolRegistry()

    async def big(args):
        return ReadLocalDraftResult(inspection_id="a", site="x", findings=["y" * 100] * 3)

    reg.register("read_local_draft", big)
    envelope = run(reg.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "a"}}))
    assert envelope["error"]["code"] == "serialization_failed" and envelope["error"]["detail"]["size"] > 200


def test_registering_a_tool_without_contract_is_refused():
    with pytest.raises(KeyError):
        HeadlessToolRegistry().register("launch_drone", lambda a: None)


def test_a_tool_can_have_its_own_timeout():
    reg = HeadlessToolRegistry(timeout_s=10)

    async def slow(args):
        await asyncio.sleep(10)

    reg.register("read_local_draft", slow, timeout_s=0.05)
    assert reg.timeout_for("read_local_draft") == 0.05 and reg.timeout_for("attach_photo") == 10
    envelope = run(reg.run({"id": "c", "name": "read_local_draft", "args": {"inspection_id": "a"}}))
    assert envelope["error"]["code"] == "timeout" and "0.05 s" in envelope["error"]["message"]
