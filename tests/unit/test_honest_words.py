"""Words an inspector reads (issue 29, "Honest edges"): a call the reviewer rejected says so, never
"failed"; a review card says what the call will do in the words of the tool's contract, the raw JSON one
tap away; a blank draft shows no risk until someone sets one."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from fake_agent_server import RecordingView
from graphs_for_tests import in_memory_graph
from langchain_core.messages import HumanMessage
from langgraph.types import Command

from sitewalk.calls.lifecycle import LABELS, CallStatus
from sitewalk.review_words import call_in_words, value_in_words
from sitewalk.session.calls import CallBoard
from sitewalk.session.review_board import ReviewBoard, SeenRevision
from sitewalk.session.reviews import reconcile
from sitewalk.ui.first_screen import first_screen
from sitewalk.ui.render import render_spec, render_template
from sitewalk_agent.demo.scripted_model import card_spec
from sitewalk_shared.contracts.tool_result import rejection
from sitewalk_shared.contracts.tools import StartBlankDraftResult

ORDER = {"interrupt_id": "int-a", "tool_call_id": "call_a", "name": "create_work_order",
         "args": {"inspection_id": "inspection-42", "subject": "Loose bolt on handrail", "priority": "urgent"},
         "description": "Raise a repair work order (a real order in the work-order system).",
         "args_revision": 1, "args_hash": "a" * 64}


# --- a rejected call -----------------------------------------------------------------------------------

def _rejected_on_the_real_graph(reason: str | None) -> dict[str, Any]:
    """The tool message of a notify_site_manager call the reviewer rejected, as the thread's state holds it."""
    async def go() -> dict[str, Any]:
        graph = in_memory_graph()
        config = {"configurable": {"thread_id": f"t-reject-{reason}"}}
        await graph.ainvoke({"messages": [HumanMessage("Start inspection inspection-42 script: review")]}, config)
        pending = [i for i in (await graph.aget_state(config)).interrupts if i.value.get("type") == "tool_approval"]
        [notice] = [i for i in pending if i.value["name"] == "notify_site_manager"]
        decision = {"type": "reject", "args_revision": 1, "args_hash": notice.value["args_hash"]}
        await graph.ainvoke(Command(resume={notice.id: {**decision, **({"message": reason} if reason else {})}}),
                            config)
        messages = (await graph.aget_state(config)).values["messages"]
        [message] = [m for m in messages if getattr(m, "tool_call_id", None) == notice.value["tool_call_id"]]
        return message.model_dump()
    return asyncio.run(go())


def test_a_rejected_call_is_labelled_rejected_by_the_reviewer_with_the_reason_never_failed():
    message = _rejected_on_the_real_graph("the manager is on leave")
    assert message["status"] == "error" and rejection(message) == "the manager is on leave"
    view = RecordingView()
    CallBoard(view).settle([message])
    [(_, name, state, detail)] = [e for e in view.events if e[0] == "tool_call"][-1:]
    assert (state, detail) == (CallStatus.REJECTED, "the manager is on leave")
    html = render_template("tool_call.j2", name=name, state=state, detail=detail)
    assert "rejected by the reviewer" in html and "the manager is on leave" in html and "failed" not in html
    assert "failed" not in LABELS[CallStatus.REJECTED]


def test_a_rejection_without_a_reason_and_one_marked_only_by_langchain_are_rejected_too():
    assert rejection(_rejected_on_the_real_graph(None)) == ""
    older = {"type": "tool", "status": "error", "content": "User rejected the tool call",
             "additional_kwargs": {"lc_source": "hitl_interrupt_decision", "lc_data": {"decision": "reject"}}}
    assert rejection(older) == ""
    failed = {"type": "tool", "status": "error", "content": '{"ok": false, "error": {"code": "x", "message": "y"}}'}
    assert rejection(failed) is None
    state = {"values": {"messages": [{**older, "tool_call_id": "c1"}, {**failed, "tool_call_id": "c2"}]}}
    assert reconcile({"c1": "notify_site_manager", "c2": "create_work_order"}, state) == {
        "c1": CallStatus.REJECTED, "c2": CallStatus.FAILED}


# --- the review card ----------------------------------------------------------------------------------

def test_a_call_in_words_uses_the_contracts_titles_and_a_persons_name_for_the_tool():
    words = call_in_words("create_work_order", ORDER["args"])
    assert words.title == "Raise a work order"
    assert words.fields == (("Inspection", "inspection-42"), ("What to repair", "Loose bolt on handrail"),
                            ("Priority", "urgent"))
    photos = call_in_words("archive_photos", {"inspection_id": "i-1", "photo_ids": ["p1", "p2"]})
    assert (photos.title, photos.fields[-1]) == ("Archive photos", ("Photos", "p1, p2"))
    unknown = call_in_words("measure_noise_level", {"duration_s": 5, "extra": {"a": 1}})
    # titled by its headless contract; no field action's schema: its arguments by their keys made readable
    assert unknown.title == "Measure the noise level" and unknown.fields == (("Duration s", "5"), ("Extra", '{"a": 1}'))
    assert [value_in_words(v) for v in (None, "", True, False, [])] == ["not set", "not set", "yes", "no", "not set"]


def test_the_review_card_says_the_call_in_words_and_keeps_the_raw_json_one_tap_away():
    board = ReviewBoard()
    board.show([ORDER])
    html = render_template("review_cards.j2", cards=board.cards(), notices=board.notices())
    heading = re.search(r"<h3>(.*?)</h3>", html, re.DOTALL)
    assert heading is not None and "Raise a work order" in heading.group(1)
    assert "create_work_order" not in heading.group(1)
    assert 'aria-label="Review: Raise a work order"' in html and 'data-tool="create_work_order"' in html
    fields = re.search(r'<dl class="sw-review-fields">(.*?)</dl>', html, re.DOTALL)
    assert fields is not None
    assert re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", fields.group(1)) == [
        ("Inspection", "inspection-42"), ("What to repair", "Loose bolt on handrail"), ("Priority", "urgent")]
    raw = re.search(r'<details class="sw-review-json-view"><summary>Raw JSON</summary>(.*?)</details>', html,
                    re.DOTALL)
    assert raw is not None and "sw-review-args" in raw.group(1) and "&#34;subject&#34;" in raw.group(1)
    assert "sw-review-args" not in html.replace(raw.group(0), "")  # the JSON is only behind the tap


def test_an_edited_card_says_the_edited_values():
    board = ReviewBoard()
    board.show([ORDER])
    board.choose("int-a", "edit", SeenRevision(1, "a" * 64), form={"inspection_id": "inspection-42",
                                                                    "subject": "Loose bolt", "priority": "low"})
    [card] = board.cards()
    assert card["words"].fields[-1] == ("Priority", "low")


# --- a blank draft's risk -----------------------------------------------------------------------------

def test_a_blank_draft_has_no_risk_and_its_screen_says_not_set():
    blank = StartBlankDraftResult(inspection_id="inspection-9", site="", created=True)
    assert blank.risk is None
    spec = card_spec(blank.model_dump())
    assert spec["elements"]["risk"]["props"] == {"level": "unset", "label": "Risk: not set"}
    html = str(render_spec(spec))
    assert "Risk: not set" in html and 'aria-label="Risk not set"' in html and "low" not in html
    set_one = str(render_spec(card_spec({**blank.model_dump(), "risk": "high"})))
    assert "Risk: high" in set_one


def test_the_draft_form_starts_with_no_risk_chosen():
    html = str(first_screen())
    select = re.search(r'<select id="sw-draft-risk">(.*?)</select>', html, re.DOTALL)
    assert select is not None
    options = re.findall(r"<option([^>]*)>(.*?)</option>", select.group(1))
    assert options[0] == (' value="" selected', "not set") and [o[1] for o in options[1:]] == [
        "low", "medium", "high", "critical"]
    assert all("selected" not in attrs for attrs, _ in options[1:])
