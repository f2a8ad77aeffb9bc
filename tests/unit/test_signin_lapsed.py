"""A sign-in that lapses mid-session (the token revoked or expired: the server answers 401), on the fake
transport: each path gives its typed outcome, keeps what the inspector gave, and sends it once after signing in.

The sign-in form itself is the client's `on_unauthorized` (tests/unit/test_signin.py): each test checks it
heard of the 401, as the app's form does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fake_agent_server import (
    HISTORY,
    RUNS,
    STATE,
    THREAD_ID,
    FakeTransport,
    RecordingView,
    paused_run,
    sse,
    waiting_state,
)
from sessions_for_tests import parts_on, resumes, session_on
from test_review_session import BOLT

from sitewalk.base.server_errors import Unauthorized, error_for_status
from sitewalk.session.actions import SIGN_IN_REQUIRED
from sitewalk.session.conversation import WAITING_FOR_SIGN_IN
from sitewalk.session.history import TimelineFeed
from sitewalk.session.review_board import ReviewBoard, SeenRevision
from sitewalk.session.thread import Thread
from sitewalk.timeline import SIGN_IN_TO_LOAD

REFUSED = (401, {"detail": "sign in: Authorization: Bearer <token>"})
STREAM_REFUSED = error_for_status(*REFUSED)  # a stream's 401 comes before its first chunk
IDLE = (200, waiting_state())
REPLY = sse(("metadata", {"run_id": "r9"}), ("values", {"messages": []}))
STREAM = f"{RUNS}/stream"


def heard(fake: FakeTransport, client: Any) -> list[Unauthorized]:
    """The 401s the app's sign-in form would hear of."""
    seen: list[Unauthorized] = []
    client.on_unauthorized = seen.append
    return seen


def signed_in_again(fake: FakeTransport, path: str, *replies: Any) -> None:
    """The inspector signed in again: the route answers as a server that accepts the token."""
    next(r for r in fake.routes if r.path == path).replies = list(replies)
    next(r for r in fake.routes if r.path == path).served = 0


# --- the composer ---------------------------------------------------------------------------------

class Outboxes:
    def __init__(self) -> None:
        self.told: list[tuple[list[str], str]] = []

    def __call__(self, messages: list[Any], why: str) -> None:
        self.told.append(([m.text for m in messages], why))


def sent_messages(fake: FakeTransport) -> list[tuple[str, str]]:
    return [(r.json["input"]["messages"][0]["id"], r.json["input"]["messages"][0]["content"])
            for r in fake.sent("POST", STREAM) if r.json.get("input")]


def test_a_message_refused_for_want_of_a_sign_in_stays_in_the_outbox_and_goes_once_after_signing_in():
    fake = (FakeTransport().on("POST", STREAM, STREAM_REFUSED).on("GET", STATE, IDLE)
            .on("POST", HISTORY, (200, [])).on("GET", RUNS, (200, [])))
    outbox = Outboxes()
    session, view = session_on(fake, on_messages=outbox)
    seen = heard(fake, session.client)
    session._on(THREAD_ID)

    assert asyncio.run(session.say("the drain is blocked")) == "waiting"  # typed, kept: not an error
    assert len(seen) == 1
    assert outbox.told[-1] == (["the drain is blocked"], WAITING_FOR_SIGN_IN)
    assert any(WAITING_FOR_SIGN_IN in s for s in view.statuses())
    assert session.parts is not None and [m.text for m in session.parts.conversation.outbox] == ["the drain is blocked"]
    [(first_id, _)] = sent_messages(fake)

    signed_in_again(fake, STREAM, REPLY)
    asyncio.run(session.reopen(THREAD_ID))  # what the app does after the sign-in: the same session reopens
    assert sent_messages(fake) == [(first_id, "the drain is blocked")] * 2  # the refused try, then once
    assert len(fake.sent("POST", STREAM)) == 2 and session.parts.conversation.outbox == []
    assert outbox.told[-1] == ([], "")


def test_a_message_refused_at_the_state_read_is_kept_and_nothing_is_sent():
    fake = FakeTransport().on("GET", STATE, REFUSED).on("POST", STREAM, REPLY)
    outbox = Outboxes()
    session, _ = session_on(fake, on_messages=outbox)
    session._on(THREAD_ID)
    assert asyncio.run(session.say("hello")) == "waiting"
    assert fake.sent("POST", STREAM) == [] and outbox.told[-1] == (["hello"], WAITING_FOR_SIGN_IN)


def test_a_message_whose_run_went_on_before_the_401_is_not_sent_again_after_signing_in():
    mine = {"type": "human", "id": "user-kept", "content": "hi"}
    fake = (FakeTransport().on("POST", STREAM, paused_run(), STREAM_REFUSED).on("GET", STATE, IDLE)
            .on("POST", HISTORY, (200, [])).on("GET", RUNS, (200, [])).on("GET", f"{RUNS}/r9/stream", REPLY))
    session, _ = session_on(fake)
    parts = session._on(THREAD_ID)
    # its run started (it asked for a headless tool); the tool's answer was refused for want of a sign-in
    assert asyncio.run(parts.conversation.say("hi", "user-kept")) == "waiting"
    assert [m.id for m in parts.conversation.outbox] == ["user-kept"]

    signed_in_again(fake, STATE, (200, waiting_state(values={"messages": [mine]})))
    signed_in_again(fake, RUNS, (200, [{"run_id": "r9"}]))
    asyncio.run(session.reopen(THREAD_ID))
    assert len(sent_messages(fake)) == 1 and parts.conversation.outbox == []  # found on the thread: no copy
    assert fake.sent("GET", f"{RUNS}/r9/stream")  # its run was followed instead


# --- review cards ---------------------------------------------------------------------------------

class Cards(RecordingView):
    """Review cards over the page's own model (`ReviewBoard`), as `app.review_view` draws them."""

    def __init__(self) -> None:
        super().__init__()
        self.board = ReviewBoard()

    def reviews(self, pending: list[dict[str, Any]]) -> None:
        self.board.show(pending)

    def review_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.board.refuse(interrupt_id, code, message)

    def review_held(self, interrupt_id: str, decision: dict[str, Any], message: str) -> None:
        self.board.hold(interrupt_id, decision, message)


def decided(cards: Cards) -> dict[str, dict[str, Any]]:
    cards.board.show([{"interrupt_id": "int-a", "tool_call_id": "call_a", "name": "create_work_order",
                       "args": BOLT["value"]["args"], "description": "", "args_revision": 1,
                       "args_hash": BOLT["value"]["args_hash"]}])
    cards.board.choose("int-a", "approve", SeenRevision(1, BOLT["value"]["args_hash"]))
    return cards.board.take()  # Send decisions: the board hands them over


def review_submit(fake: FakeTransport, cards: Cards) -> tuple[list[Any], Any, list[Unauthorized]]:
    parts = parts_on(fake, cards, review_cards=cards)
    seen = heard(fake, parts.reviews.client)
    return asyncio.run(parts.reviews.submit(decided(cards))), parts, seen


def test_a_decision_refused_for_want_of_a_sign_in_stays_on_its_card_and_is_sent_once_after():
    waiting = (200, waiting_state(BOLT))
    fake = (FakeTransport().on("GET", STATE, REFUSED).on("POST", STREAM, REPLY).on("POST", HISTORY, (200, [])))
    cards = Cards()
    refused, parts, seen = review_submit(fake, cards)
    assert [(r.interrupt_id, r.code) for r in refused] == [("int-a", "sign_in_required")] and seen
    assert resumes(fake) == []
    [card] = cards.board.cards()
    assert card["choice"]["type"] == "approve"  # kept on its card
    assert card["refusal"]["code"] == "sign_in_required" and "sign in" in card["refusal"]["message"]

    signed_in_again(fake, STATE, waiting, (200, waiting_state()))
    cards.reviews([{"interrupt_id": "int-a", "tool_call_id": "call_a", "name": "create_work_order",
                    "args": BOLT["value"]["args"], "description": "", "args_revision": 1,
                    "args_hash": BOLT["value"]["args_hash"]}])  # read again after the sign-in: still pending
    again = asyncio.run(parts.reviews.submit(cards.board.take()))
    assert again == [] and len(resumes(fake)) == 1 and list(resumes(fake)[0]) == ["int-a"]


def test_a_decision_whose_resume_is_refused_is_held_not_called_outcome_unknown():
    fake = (FakeTransport().on("GET", STATE, (200, waiting_state(BOLT)))
            .on("POST", STREAM, STREAM_REFUSED).on("POST", HISTORY, (200, [])))
    cards = Cards()
    refused, _, seen = review_submit(fake, cards)
    assert [r.code for r in refused] == ["sign_in_required"] and len(seen) == 1
    assert cards.states("create_work_order") == []  # no outcome_unknown: nothing ran
    assert cards.board.cards()[0]["choice"]["type"] == "approve"


# --- question cards -------------------------------------------------------------------------------

QUESTION = {"id": "int-q", "value": {"type": "question", "question_id": "corroded_bolts",
                                     "question": "How many bolts are corroded?", "kind": "number"}}


class QuestionCards(RecordingView):
    def __init__(self) -> None:
        super().__init__()
        self.refused: list[tuple[str, str]] = []

    def questions(self, pending: list[dict[str, Any]]) -> None:
        return None

    def question_refused(self, interrupt_id: str, code: str, message: str) -> None:
        self.refused.append((interrupt_id, code))


def test_an_answer_refused_for_want_of_a_sign_in_is_a_typed_refusal_on_its_card_and_goes_once_after():
    for state_reply, stream_reply in ((REFUSED, REPLY), ((200, waiting_state(QUESTION)), STREAM_REFUSED)):
        fake = (FakeTransport().on("GET", STATE, state_reply).on("POST", STREAM, stream_reply)
                .on("POST", HISTORY, (200, [])))
        cards = QuestionCards()
        parts = parts_on(fake, cards, question_cards=cards)
        seen = heard(fake, parts.questions.client)
        refused = asyncio.run(parts.questions.answer("int-q", "3"))
        assert refused is not None and refused.code == "sign_in_required" and "sign in" in refused.message
        assert cards.refused == [("int-q", "sign_in_required")] and len(seen) == 1

        signed_in_again(fake, STATE, (200, waiting_state(QUESTION)), (200, waiting_state()))
        signed_in_again(fake, STREAM, REPLY)
        assert asyncio.run(parts.questions.answer("int-q", "3")) is None
        answered = [r for r in resumes(fake) if r != {}]
        assert answered[-1] == {"int-q": {"question_id": "corroded_bolts", "answer": 3}}
        assert len([r for r in fake.sent("POST", STREAM)]) == (1 if state_reply == REFUSED else 2)


# --- ConfirmButton presses ------------------------------------------------------------------------

def test_a_press_refused_for_want_of_a_sign_in_says_so_on_the_button_and_is_sent_once_after():
    from test_session_actions import ACTION_RUN, AFTER, WAITING

    fake = (FakeTransport().on("GET", STATE, REFUSED).on("POST", STREAM, ACTION_RUN)
            .on("POST", HISTORY, (200, [])))
    view = RecordingView()
    parts = parts_on(fake, view)
    seen = heard(fake, parts.actions.client)
    result = asyncio.run(parts.actions.act("confirm", "create_work_order"))
    assert result == {"status": SIGN_IN_REQUIRED} and len(seen) == 1 and resumes(fake) == []
    assert ("action_result", "confirm", SIGN_IN_REQUIRED) in view.events
    assert any("sign in, then press it again" in s for s in view.statuses())

    signed_in_again(fake, STATE, (200, waiting_state(WAITING)), (200, AFTER))
    again = asyncio.run(parts.actions.act("confirm", "create_work_order"))
    assert again is not None and again["status"] == "done" and len(resumes(fake)) == 1


# --- the timeline ---------------------------------------------------------------------------------

def checkpoint(n: int, parent: int | None) -> dict[str, Any]:
    return {"checkpoint": {"checkpoint_id": f"c{n}", "checkpoint_ns": ""}, "metadata": {"source": "loop", "step": n},
            "parent_checkpoint": {"checkpoint_id": f"c{parent}"} if parent is not None else None,
            "next": [], "values": {"messages": []}, "tasks": [], "created_at": f"2026-12-03T09:00:{n:02d}Z"}


def test_a_history_page_refused_for_want_of_a_sign_in_keeps_the_steps_and_says_sign_in_to_load_more():
    newest = [checkpoint(n, n - 1) for n in (9, 8)]
    fake = FakeTransport().on("POST", HISTORY, (200, newest), REFUSED)
    view = RecordingView()
    from sessions_for_tests import client_on

    client = client_on(fake)
    seen = heard(fake, client)
    feed = TimelineFeed(client, Thread(THREAD_ID), view, page_size=2)
    asyncio.run(feed.refresh())
    shown = asyncio.run(feed.older())
    assert shown is not None and shown.notice == SIGN_IN_TO_LOAD
    assert len(feed.tree) == 2 and len(seen) == 1
    assert len(fake.sent("POST", HISTORY)) == 2  # a 401 is not retried

    again = asyncio.run(feed.refresh())  # the newest page refused too: what was shown stays
    assert again is not None and again.notice == SIGN_IN_TO_LOAD and len(feed.tree) == 2
