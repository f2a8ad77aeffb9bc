"""The app's DOM view and its newest inspection session: the one the page's controls speak to.

ConfirmButtons, review and question cards, the stuck-run panel, the composer, the timeline and the
audit panel all act on the inspection on screen, which is the newest session. The view and the
session machinery are built when the first inspection starts or is reopened, not at boot (the first
screen paints sooner): the card views and the delivery book (which import the tools' pydantic contracts)
are made with the first session too (`_Machinery`), and the tools' registry is asked for then (`tools`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agentserver.client import AgentServerClient
from ..bridge import dom, storage, tasks
from ..session.progress import StuckPolicy
from ..ui.templating import render_template
from .composer import show_waiting_messages
from .status_line import settle

if TYPE_CHECKING:
    from ..headless import HeadlessToolRegistry
    from ..headless.delivery import AnswerBook, AuditLog, ContractMismatch
    from ..headless.local_draft import AsyncKeyValueStore
    from ..session import InspectionSession
    from ..session.status_report import OnStatus
    from .question_view import QuestionCardsView
    from .review_view import ReviewCardsView
    from .stuck_view import StuckPanelView
    from .view import DomView

__all__ = ["Sessions"]


class _Machinery:
    """What every session of the page shares, made with the first one (none of it is needed before)."""

    def __init__(self, owner: Sessions, drafts: AsyncKeyValueStore) -> None:
        from ..headless.delivery import AnswerBook, AuditLog
        from .question_view import QuestionCardsView
        from .review_view import ReviewCardsView
        from .stuck_view import StuckPanelView

        self.answers: AnswerBook = AnswerBook(drafts)  # answers kept before sending: each call runs once
        self.audit: AuditLog = AuditLog(drafts)  # what left the device, per delivered answer
        self.review_cards: ReviewCardsView = ReviewCardsView(on_submit=owner._review)  # per-call reviews
        self.question_cards: QuestionCardsView = QuestionCardsView(on_answer=owner._answer)  # the site walk
        self.stuck_panel: StuckPanelView = StuckPanelView(on_choice=owner._stuck)  # a run without progress


class Sessions:
    def __init__(self, client: AgentServerClient, tools: Callable[[], HeadlessToolRegistry], drafts: AsyncKeyValueStore,
                 assistant_id: str, owner: Callable[[], str | None] = lambda: None,
                 stuck_policy: StuckPolicy | None = None, on_status: OnStatus | None = None) -> None:
        self._client = client
        self._on_status = on_status  # where the inspection is after each run (app.status_line)
        self._stuck_policy = stuck_policy or StuckPolicy()  # ?stuck= / stuckSeconds (session/stuck_limits.py)
        self._tools = tools  # this device's headless tools, built when first asked for (app.device_tools)
        self._drafts = drafts
        self._shared: _Machinery | None = None
        self._assistant_id = assistant_id
        self._owner = owner  # the signed-in identity: where the server files this inspector's store items
        self._mismatches: list[ContractMismatch] = []
        self._view: DomView | None = None
        self._newest: InspectionSession | None = None

    def current(self) -> InspectionSession | None:
        return self._newest

    def thread_id(self) -> str | None:
        return self._newest.thread_id if self._newest is not None else None

    def view(self) -> DomView:
        if self._view is None:
            from .timeline import TimelinePanel  # replay, fork, branches: with the first view
            from .view import DomView

            timeline = TimelinePanel(self.current)  # what the timeline keeps in the page is this panel's
            self._view = DomView(on_action=self._act, on_timeline=timeline.draw)
            timeline.attach()
        return self._view

    def new(self, on_thread: Callable[[str], None] | None = None) -> InspectionSession:
        """A session for the next inspection, which becomes the one on screen."""
        from ..session import DeviceHooks, InspectionSession, ScreenHooks  # jsonpatch, streaming: at the first one

        shared = self._machinery()
        device = DeviceHooks(book=shared.answers, audit=shared.audit, message_store=storage.LocalStorageStore(),
                             on_thread=on_thread, owner=self._owner, wait_for_network=tasks.wait_for_online,
                             stuck_policy=self._stuck_policy)
        shown = ScreenHooks(review_cards=shared.review_cards, question_cards=shared.question_cards,
                            stuck_panel=shared.stuck_panel, on_status=self._on_status, on_outbox=_show_outbox,
                            on_messages=show_waiting_messages, on_contract_mismatch=self._show_mismatch)
        self._newest = InspectionSession(self._client, self._tools(), self.view(), device_hooks=device,
                                         screen_hooks=shown, assistant_id=self._assistant_id)
        return self._newest

    def _machinery(self) -> _Machinery:
        if self._shared is None:
            self._shared = _Machinery(self, self._drafts)
        return self._shared

    def for_thread(self, thread_id: str) -> InspectionSession:
        """The session on screen when it is on `thread_id` (what it holds goes on: messages kept while the
        server asked for a sign-in are sent), else a new one."""
        newest = self._newest
        if newest is not None and newest.thread_id == thread_id and not newest.cancelled:
            return newest
        return self.new()

    # A run these start that fails is said on the status line (failed: reason), not raised (status_line.settle).
    def _act(self, element_id: str, action: str, subject: str) -> Any:
        return settle(self._newest.act(element_id, action, subject)) if self._newest is not None else None

    async def _review(self, decisions: dict[str, dict[str, Any]]) -> None:
        if self._newest is not None:
            await settle(self._newest.review(decisions))

    async def _answer(self, interrupt_id: str, raw: object) -> None:
        if self._newest is not None:
            await settle(self._newest.answer(interrupt_id, raw))

    def _stuck(self, choice: str) -> None:
        """Cancel or Continue on the stuck panel; a refusal is said on the panel, which stays."""
        from ..session.refusals import Refused

        try:
            if self._newest is None:
                raise Refused("not_stuck", "no inspection is open")
            self._newest.resolve_stuck(choice)
        except Refused as refused:
            self._machinery().stuck_panel.refused(refused.code, refused.message)

    def _show_mismatch(self, mismatch: ContractMismatch) -> None:
        """The visible version-mismatch state: one banner above the app, each tool with both digests."""
        self._mismatches.append(mismatch)
        app = dom.element("app")
        node = dom.ensure_element("sw-contract-mismatch", "section", "sw-contract-mismatch", "alert", app,
                                  app.firstChild)
        dom.set_html(node, render_template("contract_mismatch.j2", mismatches=self._mismatches))


def _show_outbox(waiting: int) -> None:
    """'Waiting for the network' while answers sit in the outbox; hidden once they are delivered."""
    status = dom.element("sw-status")
    node = dom.ensure_element("sw-outbox", "p", "sw-outbox", "status", status.parentNode, status.nextSibling)
    node.dataset.waiting = str(waiting)
    node.hidden = not waiting
    node.textContent = (f"Waiting for the network: {waiting} answer{'s' if waiting != 1 else ''} kept on this "
                        "device, sent once the agent server can be reached.") if waiting else ""
