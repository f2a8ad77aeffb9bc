"""Refused review decisions on the live agent server of the session (langgraph dev; Aegra with
SITEWALK_SERVER=aegra, `./sw test-durable tests/unit/test_review_refusals_live.py`), through the official
Python SDK: a contract-breaking edit, a stale args_hash and a repeated decision are refused without failing
the run, nothing runs, the thread still waits, and a correct decision afterwards works (tests/review_refusals_live.py).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from review_refusals_live import contract_breaking_edit, repeated_decision, stale_decision
from test_session_live import RecordingView

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless import HeadlessToolRegistry
from sitewalk.session import InspectionSession, ScreenHooks
from sitewalk.session.review_board import ReviewBoard
from sitewalk.session.reviews import edit
from sitewalk.ui.render import render_template


def test_a_contract_breaking_edit_is_refused_the_call_stays_pending_the_others_apply(agent_server):
    asyncio.run(contract_breaking_edit(agent_server))


def test_a_stale_args_hash_is_refused_and_a_fresh_decision_then_runs(agent_server):
    asyncio.run(stale_decision(agent_server))


def test_a_repeated_decision_runs_nothing_twice(agent_server):
    asyncio.run(repeated_decision(agent_server))


class _Cards:
    """The review cards as the page gets them (`session.reviews.ReviewCards`), drawn by the real board."""

    def __init__(self) -> None:
        self.board = ReviewBoard()

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        self.board.show(pending)

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.board.refuse(interrupt_id, code, message)

    def review_held(self, interrupt_id: str, decision: dict[str, Any], message: str) -> None:
        self.board.hold(interrupt_id, decision, message)

    def html(self) -> str:
        return render_template("review_cards.j2", cards=self.board.cards(), notices=self.board.notices())


def test_the_servers_refusal_of_an_edit_reaches_the_card_with_its_field(agent_server):
    """The device's own session sends an edit the contract refuses (as an old client would, past the
    editor's check): the server refuses it, the call's card is drawn again with `invalid_edit` on `priority`."""

    async def go() -> tuple[list[Any], _Cards, str]:
        cards = _Cards()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, HeadlessToolRegistry(), RecordingView(),
                                        screen_hooks=ScreenHooks(review_cards=cards))
            await session.start(f"inspection-rc{uuid.uuid4().hex[:8]}", note="script: review")
            order = next(r for r in await session.show_reviews() if r.name == "create_work_order")  # as the app does
            refused = await session.review({order.interrupt_id: edit(order, {**order.args, "priority": "medium"})})
        return refused, cards, order.tool_call_id

    refused, cards, call_id = asyncio.run(go())
    [refusal] = refused
    assert (refusal.code, refusal.field) == ("invalid_edit", "priority") and "urgent" in refusal.message
    [card] = [c for c in cards.board.cards() if c["review"].tool_call_id == call_id]
    assert card["refusal"]["code"] == "invalid_edit" and card["review"].interrupt_id == refusal.interrupt_id
    html = cards.html()
    assert 'data-code="invalid_edit"' in html and 'data-field="priority"' in html
    assert len(cards.board.cards()) == 3  # the other reviews are still pending too
