"""A tool call in an inspector's words: one title per tool, and an expected typed answer read as such.

Issue 29: the call list named calls by their code names and read `read_local_draft`'s not_found (a device
with no draft: the ordinary start of an inspection) as "failed". Each tool's title comes from one place
(`sitewalk.calls.words`), the code name stays on the row, and only the answers a contract lists as
expected read in words; every other error still reads failed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sitewalk.calls.lifecycle import CallStatus as S
from sitewalk.calls.words import ExpectedAnswer, call_title, expected_answer, has_title
from sitewalk.review_words import call_in_words
from sitewalk.session.calls import CallBoard, error_code
from sitewalk.ui.templating import render_template
from sitewalk_agent.demo.unknown_tool import ScriptedUnknownToolMiddleware
from sitewalk_agent.site_walk import SiteWalkMiddleware
from sitewalk_agent.toolkit import field_review_middleware, sitewalk_middleware
from sitewalk_shared.contracts.field_actions import ACTION_TITLES
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

NOT_FOUND = {"ok": False, "error": {"code": "not_found", "message": "no draft for inspection-7; start one"}}
CORRUPT = {"ok": False, "error": {"code": "corrupt_data", "message": "sitewalk:draft:inspection-7 is unreadable"}}


class Recorded:
    """A view that keeps each row as drawn: (name, state, detail, answer)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, ExpectedAnswer | None]] = []

    def tool_call(self, call_id: str, name: str, state: str, detail: str = "",
                  answer: ExpectedAnswer | None = None) -> None:
        self.rows.append((name, str(state), detail, answer))


def _agent_tools() -> list[str]:
    middleware = [*sitewalk_middleware(), *field_review_middleware(), SiteWalkMiddleware(),
                  ScriptedUnknownToolMiddleware()]
    return sorted({t.name for m in middleware for t in getattr(m, "tools", ())})


@pytest.mark.parametrize("name", sorted(TOOL_CONTRACTS))
def test_every_headless_contract_carries_a_title(name):
    title = TOOL_CONTRACTS[name].title
    assert title.strip() and "_" not in title and title[0].isupper()


def test_every_tool_the_agent_offers_has_a_title_of_its_own_and_no_two_share_one():
    tools = _agent_tools()
    assert {"read_local_draft", "render_ui", "create_work_order", "walk_site"} <= set(tools)
    assert [name for name in tools if not has_title(name)] == []
    titles = [call_title(name) for name in tools]
    assert len(set(titles)) == len(titles)


def test_titles_come_from_the_contract_the_field_actions_and_the_small_map():
    assert call_title("read_local_draft") == "Read the saved draft"
    assert call_title("get_current_location") == "Find this device's position"
    assert call_title("create_work_order") == ACTION_TITLES["create_work_order"] == "Raise a work order"
    assert call_title("render_ui") == "Draw a screen"
    assert call_title("lookup_site") == "Lookup site" and not has_title("lookup_site")  # no title: readable


def test_the_review_card_names_the_action_with_the_same_title():
    for name in ("create_work_order", "read_local_draft", "render_ui"):
        assert call_in_words(name, {}).title == call_title(name)


def test_only_an_answer_the_contract_lists_is_expected():
    assert expected_answer("read_local_draft", "not_found") == ExpectedAnswer("not_found",
                                                                              "No saved draft on this device")
    assert expected_answer("read_local_draft", "corrupt_data") is None  # a real failure
    assert expected_answer("start_blank_draft", "not_found") is None  # the same code from another tool
    assert expected_answer("create_work_order", "not_found") is None and expected_answer("nope", "not_found") is None
    assert expected_answer("read_local_draft", None) is None


def test_a_device_with_no_draft_reads_in_words_and_stays_failed_in_the_lifecycle():
    view = Recorded()
    calls = CallBoard(view)
    calls.show("d1", "read_local_draft", S.ARGS_READY)
    calls.ended("d1", "read_local_draft", NOT_FOUND)
    assert calls.status("d1") is S.FAILED  # data-state and every rule reading the lifecycle are unchanged
    assert view.rows[-1] == ("read_local_draft", "failed", "", ExpectedAnswer("not_found",
                                                                              "No saved draft on this device"))


def test_a_real_failure_of_the_same_tool_still_reads_failed_with_its_code_and_message():
    view = Recorded()
    calls = CallBoard(view)
    calls.ended("d1", "read_local_draft", CORRUPT)
    assert view.rows[-1] == ("read_local_draft", "failed",
                             "corrupt_data: sitewalk:draft:inspection-7 is unreadable", None)


def test_the_servers_tool_message_of_no_draft_reads_in_words_too():
    """A reload learns the call's end from the thread's state: the same words as when the device answered."""
    view = Recorded()
    calls = CallBoard(view)
    calls.settle([{"type": "tool", "tool_call_id": "d1", "name": "read_local_draft", "status": "error",
                   "content": json.dumps(NOT_FOUND)},
                  {"type": "tool", "tool_call_id": "d2", "name": "get_current_location", "status": "error",
                   "content": json.dumps({"ok": False, "error": {"code": "not_found", "message": "x"}})}])
    assert view.rows[0][1:] == ("failed", "", ExpectedAnswer("not_found", "No saved draft on this device"))
    assert view.rows[1][1:] == ("failed", "not_found: x", None)  # not an expected answer of that tool
    assert error_code(json.dumps(CORRUPT)) == "corrupt_data" and error_code("plain text") is None


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_the_row_says_the_title_keeps_the_code_name_and_reads_an_expected_answer_without_failed():
    row = render_template("tool_call.j2", name="read_local_draft", state="failed", detail="",
                          answer=expected_answer("read_local_draft", "not_found"))
    assert _text(row) == "Read the saved draft No saved draft on this device read_local_draft"
    assert 'class="sw-tool-code">read_local_draft<' in row and 'title="failed: not_found"' in row
    failed = render_template("tool_call.j2", name="read_local_draft", state="failed",
                             detail="corrupt_data: unreadable", answer=None)
    assert _text(failed) == "Read the saved draft failed read_local_draft corrupt_data: unreadable"


def test_a_name_with_markup_is_escaped_in_the_row():
    row: Any = render_template("tool_call.j2", name="<b>x</b>", state="succeeded", detail="", answer=None)
    assert "<b>" not in row and "&lt;b&gt;" in row
