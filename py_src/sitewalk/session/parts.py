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

__all__ = ["DeviceHooks", "ScreenHooks", "ThreadParts"]


@dataclass(frozen=True)
class DeviceHooks:
    """What the device gives a session: where it keeps things, who is signed in, how long it waits."""

    book: AnswerBook | None = None  # answers kept on the device before sending (exactly once across reloads)
    audit: AuditLog | None = None  # what left the device, per delivered answer
    message_store: KeyValueStore | None = None  # where waiting messages are kept on the device, per thread
    on_thread: Callable[[str], None] | None = None  # the thread a start created (kept for a reload)
    owner: Callable[[], str | None] = lambda: None  # the signed-in identity (None: the server has no sign-in)
    wait_for_network: WaitForNetwork = backoff  # attempt -> back online (or worth a retry)
    stuck_policy: StuckPolicy = StuckPolicy()  # how long silence may last before a run is called stuck


@dataclass(frozen=True)
class ScreenHooks:
    """Where the app shows what a session has to say beyond its `View`: cards, panels, banners, the status line."""

    review_cards: ReviewCards | None = None  # where pending per-call reviews are shown
    question_cards: QuestionCards | None = None  # where the agent's questions (the site walk) are shown
    stuck_panel: StuckPanel | None = None  # where a run that makes no progress is shown, with its choices
    on_status: OnStatus | None = None  # where the inspection is after each run (the status line)
    on_outbox: Callable[[int], None] | None = None  # answers waiting for the network (0: none)
    on_messages: OnOutbox | None = None  # the inspector's messages waiting to be sent, and why
    on_contract_mismatch: Callable[[ContractMismatch], None] | None = None  # a tool's contract differs


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
              screen: ScreenFeed, cancellation: Cancellation, device_hooks: DeviceHooks,
              screen_hooks: ScreenHooks) -> ThreadParts:
        device, shown = device_hooks, screen_hooks
        wait = device.wait_for_network
        calls = CallBoard(view)
        guard = StuckGuard(client, thread, view, cancellation, shown.stuck_panel, device.stuck_policy)
        stream = RunStream(client, thread, view, screen, calls, wait, guard)
        answers = HeadlessAnswers(client, thread, registry, calls, cancellation, book=device.book, audit=device.audit,
                                  on_mismatch=shown.on_contract_mismatch)
        outbox = Outbox(client, thread, stream, wait, on_waiting=shown.on_outbox)
        timeline = TimelineFeed(client, thread, view)
        loop = RunLoop(stream, answers, outbox, timeline, cancellation, StatusReport(client, thread, shown.on_status))
        actions = UiActions(client, thread, view, screen, loop, stream, wait)
        kept = KeptMessages(device.message_store, thread.id) if device.message_store is not None else None
        conversation = Conversation(client, thread, view, loop, stream, wait, on_outbox=shown.on_messages, kept=kept)
        reviews = Reviews(client, thread, view, loop, shown.review_cards)
        questions = Questions(client, thread, loop, shown.question_cards)
        return cls(thread, stream, answers, outbox, timeline, loop, actions, conversation, reviews, questions)
