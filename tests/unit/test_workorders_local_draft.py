"""The device's own write, save_local_draft, is idempotent: the same draft saved twice is written once."""

from __future__ import annotations

import asyncio
import json

from memory_storage import MemoryStore

from sitewalk.headless import HeadlessToolRegistry, draft_key, save_local_draft
from sitewalk.headless.local_draft import save_record_key

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 4", "inspector": "Ana", "findings": ["rust"], "risk": "high"}


class CountingStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    async def set(self, key: str, value: str) -> None:
        self.writes.append(key)
        await super().set(key, value)


def saver(store):
    times = iter(f"2026-12-03T10:0{i}:00Z" for i in range(10))
    registry = HeadlessToolRegistry()
    registry.register("save_local_draft", save_local_draft(store, clock=lambda: next(times)))
    return lambda draft, call_id: asyncio.run(registry.run({"id": call_id, "name": "save_local_draft",
                                                            "args": draft}))


def test_the_same_draft_saved_twice_is_written_once_and_answers_the_original():
    store = CountingStore()
    save = saver(store)
    first = save(DRAFT, "call_1")
    again = save(DRAFT, "call_1")  # a replayed or re-delivered call
    other_call = save(dict(reversed(DRAFT.items())), "call_2")  # the same draft, its fields in another order
    assert first["ok"] and again["result"] == first["result"] == other_call["result"]
    assert store.writes.count(draft_key("inspection-42")) == 1
    record = json.loads(store.data[save_record_key("inspection-42")])
    assert record["key"].startswith("draft-save:inspection-42:") and record["result"] == first["result"]


def test_a_different_draft_is_written_and_going_back_to_an_earlier_one_writes_it_again():
    store = CountingStore()
    save = saver(store)
    save(DRAFT, "c1")
    changed = save({**DRAFT, "risk": "critical"}, "c2")
    back = save(DRAFT, "c3")  # the inspector chose the earlier text again: that is a new save
    assert changed["result"]["updated_at"] != back["result"]["updated_at"]
    assert store.writes.count(draft_key("inspection-42")) == 3
    assert json.loads(store.data[draft_key("inspection-42")])["risk"] == "high"
    notes = save({**DRAFT, "notes": "gate code"}, "c4")  # the notes are part of the draft
    assert notes["result"]["updated_at"] != back["result"]["updated_at"]


def test_an_unreadable_save_record_means_save_again():
    store = CountingStore()
    store.data[save_record_key("inspection-42")] = "{not json"
    assert saver(store)(DRAFT, "c1")["ok"]
    assert store.writes.count(draft_key("inspection-42")) == 1
