"""The session's parts for one thread, wired by constructor injection (see `ThreadParts.build`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..agentserver.client import AgentServerClient
from ..base.device_storage import KeyValueStore
from ..headless.delivery import AnswerBook, AuditLog, ContractMismatch
from ..headless.registry import HeadlessToolRegistry
from ..screen_feed import ScreenFeed
from .actions import UiActions
from .answers import HeadlessAnswers
from .calls import CallBoard
from .cancel import Cancellation
from .conversation import Conversation, OnOutbox
from .history import TimelineFeed
from .kept_messages import KeptMessages
from .loop import RunLoop
from .outbox import Outbox
from .progress import StuckPolicy
from .questions import QuestionCards, Questions
from .reviews import ReviewCards, Reviews
from .status_report import OnStatus, StatusReport
from .stream import RunStream
from .stuck import StuckGuard, StuckPanel
from .thread import Thread, WaitForNetwork, backoff
from .view import View

__all__ = ["Hooks", "ThreadParts"]


@dataclass(frozen=True)
class Hooks:
    """What the app gives a session: where answers are kept, what it is told, how it waits."""

    book: AnswerBook | None = None  # answers kept on the device before sending (exactly once across reloads)
    audit: AuditLog | None = None  # what left the device, per delivered answer
    on_contract_mismatch: Callable[[ContractMismatch], None] | None = None
    on_outbox: Callable[[int], None] | None = None  # answers waiting for the network (0: none)
    on_thread: Callable[[str], None] | None = None  # the thread a start created
    on_messages: OnOutbox | None = None  # the inspector's messages waiting to be sent, and why
    message_store: KeyValueStore | None = None  # where waiting messages are kept on the device, per thread
    wait_for_network: WaitForNetwork = backoff  # attempt -> back online (or worth a retry)
    review_cards: ReviewCards | None = None  # where pending per-call reviews are shown
    question_cards: QuestionCards | None = None  # where the agent's questions (the site walk) are shown
    stuck_panel: StuckPanel | None = None  # where a run that makes no progress is shown, with its choices
    stuck_policy: StuckPolicy = StuckPolicy()  # how long silence may last before a run is called stuck
    owner: Callable[[], str | None] = lambda: None  # the signed-in identity (None: the server has no sign-in)
    on_status: OnStatus | None = None  # where the inspection is after each run (the status line)


@dataclass(frozen=True)
class ThreadParts:
    thread: Thread
    stream: RunStream
    answers: HeadlessAnswers
    outbox: Outbox
    timeline: TimelineFeed
    loop: RunLoop
    actions: UiActions
    conversation: Conversation
    reviews: Reviews
    questions: Questions

    @classmethod
    def build(cls, client: AgentServerClient, thread: Thread, registry: HeadlessToolRegistry, view: View,
              screen: ScreenFeed, cancellation: Cancellation, hooks: Hooks) -> ThreadParts:
        wait = hooks.wait_for_network
        calls = CallBoard(view)
        guard = StuckGuard(client, thread, view, cancellation, hooks.stuck_panel, hooks.stuck_policy)
        stream = RunStream(client, thread, view, screen, calls, wait, guard)
        answers = HeadlessAnswers(client, thread, registry, calls, cancellation, book=hooks.book, audit=hooks.audit,
                                  on_mismatch=hooks.on_contract_mismatch)
        outbox = Outbox(client, thread, stream, wait, on_waiting=hooks.on_outbox)
        timeline = TimelineFeed(client, thread, view)
        loop = RunLoop(stream, answers, outbox, timeline, cancellation, StatusReport(client, thread, hooks.on_status))
        actions = UiActions(client, thread, view, screen, loop, stream, wait)
        kept = KeptMessages(hooks.message_store, thread.id) if hooks.message_store is not None else None
        conversation = Conversation(client, thread, view, loop, stream, wait, on_outbox=hooks.on_messages, kept=kept)
        reviews = Reviews(client, thread, view, loop, hooks.review_cards)
        questions = Questions(client, thread, loop, hooks.question_cards)
        return cls(thread, stream, answers, outbox, timeline, loop, actions, conversation, reviews, questions)
