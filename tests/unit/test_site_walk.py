"""The site walk in-process: the question contract, the scripted `site-walk` scenario, and the subgraph with
its own checkpoints in the inspection graph (two interrupts in turn, a refused answer asked again, a fork
between the questions)."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from sitewalk.session.questions import PendingQuestion, pending_questions, resume_value
from sitewalk.session.refusals import Refused
from sitewalk_agent.demo.scripted_model import plan_turn, walk_findings
from sitewalk_agent.graph import build_graph
from sitewalk_agent.site_walk import QUESTIONS, SITE_WALK, WALK_NODE, WALK_TOOL
from sitewalk_shared.contracts.envelope import ok_result
from sitewalk_shared.contracts.questions import MAX_COUNT, InvalidAnswer, answer_text, parse_answer, question_of

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
OPEN = "Start inspection inspection-42\nscript: site-walk"


@pytest.mark.parametrize(("kind", "raw", "value"), [
    ("yes_no", True, True), ("yes_no", "Yes", True), ("yes_no", " no ", False), ("number", 3, 3),
    ("number", "12", 12), ("number", 0, 0), ("number", MAX_COUNT, MAX_COUNT)])
def test_an_answer_that_fits_its_question(kind, raw, value):
    assert parse_answer(kind, raw) == value


@pytest.mark.parametrize(("kind", "raw"), [
    ("yes_no", "maybe"), ("yes_no", 1), ("yes_no", None), ("number", -1), ("number", MAX_COUNT + 1),
    ("number", "three"), ("number", True), ("number", 2.5), ("number", ""), ("colour", "red")])
def test_an_answer_that_does_not_fit_is_a_typed_refusal(kind, raw):
    with pytest.raises(InvalidAnswer) as refused:
        parse_answer(kind, raw)
    assert refused.value.code == "invalid_answer" and str(refused.value)


def test_questions_are_found_in_a_state_with_the_subgraphs_task():
    asked = {"type": "question", "question_id": "corroded_bolts", "question": "How many bolts are corroded?",
             "kind": "number", "inspection_id": "inspection-42", "error": ""}
    state = {"interrupts": [], "tasks": [{"name": WALK_NODE, "interrupts": [{"id": "i1", "value": asked}]},
                                         {"name": "tools", "interrupts": [{"id": "i2", "value": {"type": "tool"}}]}]}
    (found,) = pending_questions(state)
    assert found == PendingQuestion("i1", "corroded_bolts", "How many bolts are corroded?", "number", "")
    assert resume_value(found, "4") == {"question_id": "corroded_bolts", "answer": 4}
    with pytest.raises(Refused) as refused:
        resume_value(found, "yes")
    assert refused.value.code == "invalid_answer" and refused.value.interrupt_id == "i1"
    assert question_of({"type": "question", "question_id": 3}) is None  # not a well-formed question
    assert answer_text("yes_no", False) == "no" and answer_text("number", 7) == "7"


def test_the_scenario_shows_the_card_then_walks_then_writes_the_answers_into_the_findings():
    render = AIMessage("", tool_calls=[{"id": "r1", "name": "render_ui", "args": {}}])
    messages = [HumanMessage(OPEN), AIMessage("", tool_calls=[{"id": "d1", "name": "read_local_draft",
                                                                "args": {"inspection_id": "inspection-42"}}]),
                ToolMessage(json.dumps(ok_result("read_local_draft", "d1", DRAFT)), tool_call_id="d1",
                            name="read_local_draft"),
                render, ToolMessage(json.dumps({"ok": True, "result": {}}), tool_call_id="r1", name="render_ui")]
    walk = plan_turn(messages)
    assert walk.calls == [(WALK_TOOL, {"inspection_id": "inspection-42"})]
    answers = [{"question_id": "handrail_secure", "question": "Is the handrail secure?", "kind": "yes_no",
                "answer": False}, {"question_id": "corroded_bolts", "question": "How many bolts are corroded?",
                                   "kind": "number", "answer": 3}]
    envelope = {"ok": True, "tool": WALK_TOOL, "tool_call_id": "w1", "result": {"answers": answers}}
    done = plan_turn([*messages, AIMessage("", tool_calls=[{"id": "w1", "name": WALK_TOOL, "args": {}}]),
                      ToolMessage(json.dumps(envelope), tool_call_id="w1", name=WALK_TOOL)])
    assert walk_findings(answers) == ["Handrail secure: no", "Corroded bolts: 3"]
    assert not done.calls and done.text.count('"path":"/elements/card/props/findings/-"') == 2


def test_the_walk_has_its_own_checkpointer_and_is_the_nodes_subgraph():
    assert SITE_WALK.checkpointer is True
    assert [q.kind for q in QUESTIONS] == ["yes_no", "number"]
    assert [name for name, _ in build_graph().get_subgraphs()] == [WALK_NODE]


class _Run:
    """The inspection graph in-process on a memory checkpointer; answers what it asks."""

    def __init__(self, thread="t"):
        self.graph = build_graph()
        self.graph.checkpointer, self.graph.store = InMemorySaver(), InMemoryStore()
        self.config = {"configurable": {"thread_id": thread}}
        self.asked = []

    def go(self, value, config=None):
        asyncio.run(self.graph.ainvoke(value, config or self.config))

    def state(self, **kwargs):
        return asyncio.run(self.graph.aget_state(self.config, **kwargs))

    def answer(self, **answers):
        (pending,) = self.state().interrupts
        value = pending.value
        if value["type"] == "tool":
            call = value["tool_call"]["id"]
            return self.go(Command(resume={pending.id: {call: ok_result("read_local_draft", call, DRAFT)}}))
        self.asked.append((value["question_id"], value["error"]))
        self.go(Command(resume={pending.id: {"question_id": value["question_id"],
                                             "answer": answers[value["question_id"]]}}))

    def findings(self):
        return self.state().values["ui_spec"]["elements"]["card"]["props"]["findings"]

    def walk_history(self):
        config = {"configurable": {"thread_id": self.config["configurable"]["thread_id"], "checkpoint_ns": WALK_NODE}}
        return asyncio.run(_collect(self.graph.aget_state_history(config)))


async def _collect(items):
    return [item async for item in items]


def test_two_questions_in_turn_each_its_own_interrupt_and_a_refused_answer_is_asked_again():
    run = _Run()
    run.go({"messages": [HumanMessage(OPEN)]})
    run.answer()  # the draft
    state = run.state(subgraphs=True)
    assert state.next == (WALK_NODE,) and state.tasks[0].state.next == ("ask_handrail_secure",)
    run.answer(handrail_secure="perhaps")  # refused: the same question again, with why
    run.answer(handrail_secure="yes")
    run.answer(corroded_bolts=3)
    assert run.asked == [("handrail_secure", ""), ("handrail_secure", "answer yes or no (got 'perhaps')"),
                         ("corroded_bolts", "")]
    assert run.findings() == ["crack", "Handrail secure: yes", "Corroded bolts: 3"]
    assert not run.state().next
    walk = run.walk_history()
    assert [s.next for s in walk] == [(), ("ask_corroded_bolts",), ("ask_handrail_secure",), ("__start__",)]


def test_a_fork_between_the_questions_asks_only_the_second_again():
    run = _Run("fork")
    run.go({"messages": [HumanMessage(OPEN)]})
    run.answer()
    run.answer(handrail_secure=True)
    run.answer(corroded_bolts=3)
    between = next(s for s in run.walk_history() if s.next == ("ask_corroded_bolts",))
    run.asked.clear()
    run.go(None, between.config)  # the walk's own checkpoint, with its checkpoint_map
    run.answer(corroded_bolts=7)
    assert run.asked == [("corroded_bolts", "")]
    assert run.findings() == ["crack", "Handrail secure: yes", "Corroded bolts: 7"]


def test_a_question_card_drawn_again_keeps_what_was_typed_escaped_with_the_refusal():
    from sitewalk.ui.render import render_template

    question = PendingQuestion("iid-2", "corroded_bolts", "How many bolts are corroded?", "number", "").as_dict()
    html = str(render_template("question_cards.j2", questions=[question], max_count=MAX_COUNT,
                               refusals={"iid-2": ("invalid_answer", "answer with a whole number")},
                               typed={"iid-2": '-4"><b>'}))
    assert 'value="-4&#34;&gt;&lt;b&gt;"' in html and "invalid_answer: answer with a whole number" in html
    fresh = str(render_template("question_cards.j2", questions=[question], refusals={}, typed={"iid-1": "3"},
                                max_count=MAX_COUNT))
    assert "value=" not in fresh  # another interrupt's typed value is not carried over
