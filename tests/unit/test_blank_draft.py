"""Starting without a saved draft: the device starts a blank draft (`start_blank_draft`, create-if-absent),
the agent shows it with its empty fields and says so; an unreadable draft stays a typed failure and is kept.

The contract, the browser's implementation on an in-memory store, the scripted model's turns, and the real
graph in-process with the device answered by the same registry the browser uses (replay and fork included).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command
from memory_storage import DictStorage, MemoryStore

from sitewalk.base.device_errors import StorageError
from sitewalk.headless import (
    HeadlessToolRegistry,
    draft_key,
    read_local_draft,
    save_local_draft,
    start_blank_draft,
)
from sitewalk_agent.demo.scripted_model import BLANK_NOTE, KEPT_CORRUPT, plan_turn
from sitewalk_agent.graph import TOOL_SCHEMAS, build_graph
from sitewalk_shared.contracts.envelope import error_result, ok_result
from sitewalk_shared.contracts.tools import START_BLANK_DRAFT, TOOL_CONTRACTS, local_only_fields

KEY = draft_key("inspection-42")
DRAFT = {"inspection_id": "inspection-42", "site": "Pier 4", "inspector": "Ana", "findings": ["rust"], "risk": "high"}
TIMES = iter(f"2026-12-04T10:00:{s:02d}Z" for s in range(60))


class CountingStore(MemoryStore):
    """A dict store that counts its writes (a replay must not write a second draft)."""

    def __init__(self, data=None):
        super().__init__(data)
        self.writes: list[str] = []

    async def set(self, key, value):
        self.writes.append(key)
        await super().set(key, value)


def device(store, legacy=None) -> HeadlessToolRegistry:
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(store, legacy))
    registry.register("save_local_draft", save_local_draft(store))
    registry.register("start_blank_draft", start_blank_draft(store, legacy, clock=lambda: next(TIMES)))
    return registry


def call(registry, name, args, call_id="c1"):
    return asyncio.run(registry.run({"id": call_id, "name": name, "args": args}))


# --- the contract ----------------------------------------------------------------------------------


def test_the_contract_is_shared_and_says_when_to_call_it_and_that_a_second_call_is_safe():
    assert TOOL_CONTRACTS["start_blank_draft"] is START_BLANK_DRAFT
    assert set(START_BLANK_DRAFT.args.model_fields) == {"inspection_id"}
    assert set(START_BLANK_DRAFT.result.model_fields) >= {"inspection_id", "site", "findings", "created", "has_notes"}
    assert local_only_fields(START_BLANK_DRAFT.result) == {"notes": "has_notes"}  # notes never leave the device
    said = START_BLANK_DRAFT.description
    assert "not_found" in said and "read_local_draft" in said and "created false" in said and "corrupt_data" in said
    declared = {t["function"]["name"]: t["function"] for t in TOOL_SCHEMAS}
    assert declared["start_blank_draft"]["description"] == said  # what a real chat model is told


def test_bad_arguments_are_refused_before_anything_is_written():
    store = CountingStore()
    envelope = call(device(store), "start_blank_draft", {"inspection_id": "no spaces allowed"})
    assert envelope["error"]["code"] == "invalid_args" and store.writes == []


# --- the browser's implementation on a dict store --------------------------------------------------


def test_a_missing_draft_reads_not_found_naming_the_recovery():
    envelope = call(device(MemoryStore()), "read_local_draft", {"inspection_id": "inspection-42"})
    error = envelope["error"]
    assert error["code"] == "not_found" and "start_blank_draft" in error["message"]
    assert error["detail"] == {"key": KEY, "recovery": "start_blank_draft"}


def test_a_blank_draft_is_written_once_and_a_later_read_finds_it():
    store = CountingStore()
    registry = device(store)
    started = call(registry, "start_blank_draft", {"inspection_id": "inspection-42"})
    assert started["ok"] and started["result"]["created"] is True
    blank = started["result"]
    assert (blank["site"], blank["inspector"], blank["findings"], blank["risk"]) == ("", "", [], None)
    assert store.writes == [KEY] and json.loads(store.data[KEY])["site"] == ""
    read = call(registry, "read_local_draft", {"inspection_id": "inspection-42"}, "c2")
    assert read["ok"] and read["result"]["updated_at"] == blank["updated_at"]
    again = call(registry, "start_blank_draft", {"inspection_id": "inspection-42"}, "c3")  # a replay, a fork
    assert again["ok"] and again["result"]["created"] is False
    assert {k: v for k, v in again["result"].items() if k != "created"} == {k: v for k, v in blank.items()
                                                                             if k != "created"}
    assert store.writes == [KEY]  # nothing written twice


def test_a_draft_the_device_holds_is_returned_as_it_is_never_overwritten():
    store = CountingStore({KEY: json.dumps({**DRAFT, "notes": "gate code 4471"})})
    envelope = call(device(store), "start_blank_draft", {"inspection_id": "inspection-42"})
    assert envelope["ok"] and envelope["result"]["created"] is False and envelope["result"]["site"] == "Pier 4"
    assert envelope["result"]["has_notes"] is True and "gate code" not in json.dumps(envelope)
    assert store.writes == [] and json.loads(store.data[KEY])["notes"] == "gate code 4471"


@pytest.mark.parametrize("text", ["{\"site\": \"Pier\", trunc", json.dumps({"site": 5}),
                                  json.dumps({**DRAFT, "inspection_id": "inspection-43"})])
def test_an_unreadable_draft_stays_corrupt_data_and_is_not_replaced(text):
    store = CountingStore({KEY: text})
    registry = device(store)
    for name in ("read_local_draft", "start_blank_draft"):
        error = call(registry, name, {"inspection_id": "inspection-42"})["error"]
        assert error["code"] == "corrupt_data" and KEY in error["message"] and "kept as it is" in error["message"]
        assert error["detail"]["recovery"] == "save_local_draft"
    assert store.writes == [] and store.data[KEY] == text


def test_an_old_local_storage_draft_counts_as_held():
    legacy = DictStorage({KEY: json.dumps(DRAFT)})
    store = MemoryStore()
    envelope = call(device(store, legacy), "start_blank_draft", {"inspection_id": "inspection-42"})
    assert envelope["result"]["created"] is False and envelope["result"]["site"] == "Pier 4"
    assert json.loads(store.data[KEY])["site"] == "Pier 4"  # moved over as it is, not blanked


def test_a_store_that_refuses_the_write_is_unavailable():
    class ReadOnly(MemoryStore):
        async def set(self, key, value):
            raise StorageError("QuotaExceededError: full")

    error = call(device(ReadOnly()), "start_blank_draft", {"inspection_id": "inspection-42"})["error"]
    assert error["code"] == "unavailable" and error["detail"] == {"key": KEY}


# --- the scripted model's turns --------------------------------------------------------------------


def _after_read(envelope: dict) -> list:
    read = {"id": "d1", "name": "read_local_draft", "args": {"inspection_id": "inspection-42"}}
    return [HumanMessage("Start inspection inspection-42"), AIMessage("", tool_calls=[read]),
            ToolMessage(json.dumps(envelope), tool_call_id="d1", name="read_local_draft", status="error")]


def test_not_found_makes_the_blank_draft_the_next_call_and_its_screen_is_said_in_one_sentence():
    messages = _after_read(error_result("read_local_draft", "d1", "not_found", "no draft"))
    recover = plan_turn(messages)
    assert recover.calls == [("start_blank_draft", {"inspection_id": "inspection-42"})]
    blank = {"inspection_id": "inspection-42", "site": "", "inspector": "", "findings": [], "risk": None,
             "created": True, "has_notes": False}
    shown = plan_turn([*messages, AIMessage("", tool_calls=[{"id": "b1", "name": "start_blank_draft", "args": {}}]),
                       ToolMessage(json.dumps(ok_result("start_blank_draft", "b1", blank)), tool_call_id="b1",
                                   name="start_blank_draft")])
    assert shown.tool == "render_ui" and shown.text.count(".") == 1
    assert shown.text == ("There was no draft for inspection-42 on this device, so I started a blank one for you "
                          "to fill in.")
    elements = shown.args["elements"]
    assert elements["card"]["props"]["site"] == "" and elements["card"]["props"]["findings"] == []
    assert elements["inspector"] == {"type": "Field", "props": {"label": "Inspector", "value": ""}, "children": []}
    assert elements["fill"]["props"]["text"] == BLANK_NOTE
    assert elements["risk"]["props"] == {"level": "unset", "label": "Risk: not set"}  # nobody said a level


def test_a_blank_draft_read_back_later_is_shown_blank_again_and_a_filled_one_as_the_card():
    blank = {"inspection_id": "inspection-42", "site": "", "inspector": "", "findings": [], "risk": None}
    messages = _after_read(ok_result("read_local_draft", "d1", blank))
    again = plan_turn(messages)
    assert again.tool == "render_ui" and again.args["elements"]["fill"]["props"]["text"] == BLANK_NOTE
    assert again.text == "The draft for inspection-42 on this device is still blank: fill it in."
    filled = plan_turn(_after_read(ok_result("read_local_draft", "d1", {**blank, "site": "Pier 4"})))
    assert filled.tool == "render_ui" and filled.args["root"] == "card" and filled.text == ""


def test_corrupt_data_is_said_with_its_own_recovery_and_nothing_is_called():
    turn = plan_turn(_after_read(error_result("read_local_draft", "d1", "corrupt_data", "the stored draft is bad")))
    assert turn.calls == [] and "corrupt_data" in turn.text and turn.text.endswith(KEPT_CORRUPT)


# --- the graph in-process, the device answered by the browser's registry ----------------------------


class _Run:
    def __init__(self, store, text="Start inspection inspection-42"):
        self.graph = build_graph()
        self.graph.checkpointer, self.graph.store = InMemorySaver(), InMemoryStore()
        self.config = {"configurable": {"thread_id": "blank", "fragment_delay_ms": 0}}
        self.registry, self.text = device(store), text
        self.asked: list[str] = []

    def go(self, value, config=None):
        asyncio.run(self.graph.ainvoke(value, config or self.config))
        self._answer_device()

    def _answer_device(self):
        while (state := self.state()).interrupts:
            (pending,) = state.interrupts
            if pending.value.get("type") != "tool":
                return  # a question of the site walk: the test answers it
            self.asked.append(pending.value["tool_call"]["name"])
            answer = asyncio.run(self.registry.answer(pending.value))
            asyncio.run(self.graph.ainvoke(Command(resume={pending.id: answer}), self.config))

    def state(self):
        return asyncio.run(self.graph.aget_state(self.config))

    def history(self):
        async def collect():
            return [s async for s in self.graph.aget_state_history(self.config)]
        return asyncio.run(collect())

    def tools_run(self):
        return [(m.name, json.loads(m.content).get("ok")) for m in self.state().values["messages"]
                if isinstance(m, ToolMessage)]


def test_start_without_a_draft_runs_on_to_the_blank_screen_and_the_device_holds_the_draft():
    store = CountingStore()
    run = _Run(store)
    run.go({"messages": [HumanMessage(run.text)]})
    assert run.tools_run() == [("read_local_draft", False), ("start_blank_draft", True), ("render_ui", True)]
    values = run.state().values
    assert values["ui_spec"]["root"] == "screen" and values["ui_spec"]["elements"]["card"]["props"]["site"] == ""
    said = [m.content for m in values["messages"] if isinstance(m, AIMessage) and m.content]
    assert said == ["Looking up the draft for inspection-42.",
                    "There was no draft for inspection-42 on this device, so I started a blank one for you to fill in.",
                    "The card for inspection-42 is on screen."]
    assert store.writes == [KEY] and not run.state().next
    read = call(run.registry, "read_local_draft", {"inspection_id": "inspection-42"}, "later")
    assert read["ok"] and read["result"]["site"] == ""


def test_replay_and_fork_through_the_blank_draft_keep_one_draft():
    store = CountingStore()
    run = _Run(store)
    run.go({"messages": [HumanMessage(run.text)]})
    kept = store.data[KEY]
    history = run.history()
    # replay from the step that was about to run start_blank_draft: the recorded answer, the device not asked
    about_to = next(s for s in history if s.next == ("tools",) and s.values["messages"][-1].tool_calls[0]["name"]
                    == "start_blank_draft")
    run.asked.clear()
    run.go(None, about_to.config)
    assert run.asked == [] and run.tools_run()[-1] == ("render_ui", True)
    # fork from before the agent decided: a new call reaches the device, which answers the draft it holds
    decided = next(s for s in history if s.next == ("model",) and isinstance(s.values["messages"][-1], ToolMessage)
                   and s.values["messages"][-1].name == "read_local_draft")
    fork = asyncio.run(run.graph.aupdate_state(decided.config, {"messages": []}, as_node="tools"))
    run.go(None, fork)
    assert run.asked == ["start_blank_draft"]
    said = [m.content for m in run.state().values["messages"] if isinstance(m, AIMessage) and m.content]
    assert said[-2] == "The draft for inspection-42 on this device is still blank: fill it in."
    assert store.writes == [KEY] and store.data[KEY] == kept  # one draft, never rewritten


def test_the_site_walk_goes_on_from_the_blank_draft_and_writes_its_answers_on_the_card():
    run = _Run(CountingStore(), "Start inspection inspection-42\nscript: site-walk")
    run.go({"messages": [HumanMessage(run.text)]})
    for question, answer in (("handrail_secure", True), ("corroded_bolts", 2)):
        (pending,) = run.state().interrupts
        assert pending.value["question_id"] == question
        run.go(Command(resume={pending.id: {"question_id": question, "answer": answer}}))
    card = run.state().values["ui_spec"]["elements"]["card"]["props"]
    assert card["site"] == "" and card["findings"] == ["Handrail secure: yes", "Corroded bolts: 2"]
    assert run.asked == ["read_local_draft", "start_blank_draft"] and not run.state().next
