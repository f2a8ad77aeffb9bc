"""Drafts on the device: save, read back, migrate from localStorage once, typed failures."""

import asyncio
import json

import pytest
from memory_storage import DictStorage, MemoryStore

from sitewalk.base.device_errors import StorageError
from sitewalk.headless import (
    HeadlessToolRegistry,
    draft_key,
    read_local_draft,
    save_local_draft,
)
from sitewalk_shared.contracts.tools import SAVE_LOCAL_DRAFT, TOOL_CONTRACTS

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 4", "inspector": "Ana", "findings": ["rust", "bolt"],
         "risk": "high"}


def run(coro):
    return asyncio.run(coro)


def make(store, legacy=None):
    reg = HeadlessToolRegistry()
    reg.register("read_local_draft", read_local_draft(store, legacy))
    reg.register("save_local_draft", save_local_draft(store, clock=lambda: "2026-12-02T10:00:00Z"))
    return reg


def call(reg, name, args, call_id="c1"):
    return run(reg.run({"id": call_id, "name": name, "args": args}))


def test_save_then_read_back():
    store = MemoryStore()
    reg = make(store)
    saved = call(reg, "save_local_draft", DRAFT)
    assert saved["ok"] and saved["result"] == {"inspection_id": "inspection-42", "updated_at": "2026-12-02T10:00:00Z",
                                               "findings": 2}
    assert json.loads(store.data[draft_key("inspection-42")])["site"] == "Pier 4"
    read = call(reg, "read_local_draft", {"inspection_id": "inspection-42"})
    assert read["ok"] and read["result"] == {**DRAFT, "updated_at": "2026-12-02T10:00:00Z", "has_notes": False}


def test_notes_saved_with_a_draft_stay_on_the_device_and_reading_it_back_sends_has_notes_only():
    store = MemoryStore()
    reg = make(store)
    notes = "gate code 4471, ask for Jonas"
    assert call(reg, "save_local_draft", {**DRAFT, "notes": notes})["ok"]
    kept = json.loads(store.data[draft_key("inspection-42")])
    assert kept["notes"] == notes and kept["has_notes"] is True
    read = call(reg, "read_local_draft", {"inspection_id": "inspection-42"})
    assert read["ok"] and read["result"]["has_notes"] is True
    assert "notes" not in read["result"] and notes not in json.dumps(read)


def test_save_replaces_the_earlier_draft():
    store = MemoryStore()
    reg = make(store)
    call(reg, "save_local_draft", DRAFT)
    call(reg, "save_local_draft", {**DRAFT, "findings": [], "risk": "low"})
    read = call(reg, "read_local_draft", {"inspection_id": "inspection-42"})
    assert read["result"]["findings"] == [] and read["result"]["risk"] == "low"


def test_save_checks_its_arguments():
    reg = make(MemoryStore())
    bad = call(reg, "save_local_draft", {**DRAFT, "risk": "apocalyptic"})
    assert bad["error"]["code"] == "invalid_args"
    assert call(reg, "save_local_draft", {"inspection_id": "inspection-42"})["error"]["code"] == "invalid_args"


def test_legacy_local_storage_draft_moves_over_once():
    store = MemoryStore()
    legacy = DictStorage({draft_key("inspection-42"): json.dumps(DRAFT)})
    reg = make(store, legacy)
    first = call(reg, "read_local_draft", {"inspection_id": "inspection-42"})
    assert first["ok"] and first["result"]["site"] == "Pier 4"
    assert legacy.data == {} and draft_key("inspection-42") in store.data
    # the store now wins: a later save is what is read, the old copy is gone
    call(reg, "save_local_draft", {**DRAFT, "site": "Pier 5"})
    assert call(reg, "read_local_draft", {"inspection_id": "inspection-42"})["result"]["site"] == "Pier 5"


def test_store_wins_over_a_stale_legacy_copy():
    store = MemoryStore({draft_key("inspection-42"): json.dumps({**DRAFT, "site": "new"})})
    legacy = DictStorage({draft_key("inspection-42"): json.dumps({**DRAFT, "site": "old"})})
    assert call(make(store, legacy), "read_local_draft", {"inspection_id": "inspection-42"})["result"]["site"] == "new"


@pytest.mark.parametrize("text", ["{\"site\": \"Pier\", trunc", json.dumps({"site": 5}), json.dumps(["a"]),
                                  json.dumps({**DRAFT, "inspection_id": "inspection-43"})])
def test_corrupt_record_is_corrupt_data_naming_the_key(text):
    store = MemoryStore({draft_key("inspection-42"): text})
    envelope = call(make(store), "read_local_draft", {"inspection_id": "inspection-42"})
    assert envelope["ok"] is False and envelope["error"]["code"] == "corrupt_data"
    assert envelope["error"]["detail"]["key"] == "sitewalk:draft:inspection-42"
    assert "sitewalk:draft:inspection-42" in envelope["error"]["message"]


def test_corrupt_legacy_draft_stays_corrupt_after_migration():
    legacy = DictStorage({draft_key("inspection-13"): "{not json"})
    store = MemoryStore()
    envelope = call(make(store, legacy), "read_local_draft", {"inspection_id": "inspection-13"})
    assert envelope["error"]["code"] == "corrupt_data" and store.data == {draft_key("inspection-13"): "{not json"}


def test_store_failure_is_unavailable():
    class Broken:
        async def get(self, key):
            raise StorageError("QuotaExceededError: full")

        async def set(self, key, value):
            raise StorageError("QuotaExceededError: full")

    reg = make(Broken())
    assert call(reg, "read_local_draft", {"inspection_id": "inspection-42"})["error"]["code"] == "unavailable"
    assert call(reg, "save_local_draft", DRAFT)["error"]["code"] == "unavailable"


def test_save_local_draft_is_a_shared_contract():
    assert TOOL_CONTRACTS["save_local_draft"] is SAVE_LOCAL_DRAFT
    assert set(SAVE_LOCAL_DRAFT.args.model_fields) == {"inspection_id", "site", "inspector", "findings", "risk",
                                                       "notes"}
