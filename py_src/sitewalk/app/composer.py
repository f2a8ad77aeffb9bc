"""The message box under the transcript: the inspector talks to the agent on the current inspection.

The text leaves the box only once the session has taken it (sent, or kept in its outbox and listed
under the box with why it waits); with no inspection to talk to it stays in the box.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..bridge import dom, tasks
from ..ui.templating import render_template
from .status_line import settle

if TYPE_CHECKING:
    from ..session import InspectionSession
    from ..session.conversation import Outgoing

__all__ = ["Composer", "show_waiting_messages"]


class Composer:
    def __init__(self, current: Callable[[], InspectionSession | None]) -> None:
        self.current = current  # the session messages go to (None: no inspection yet)

    def attach(self) -> None:
        tasks.on("sw-send", "click", self.send)

    async def send(self, _event: object = None) -> str:
        box = dom.element("sw-message")
        text = str(box.value).strip()
        session = self.current()
        if not text:
            return ""
        if session is None or session.thread_id is None:
            dom.show_status("Start or open an inspection first: your message stays in the box.", error=True)
            return "no-thread"
        box.value = ""  # the session holds it from here (sent, or in its outbox)
        result = await settle(session.say(text)) or "sent"  # a run that failed: the status line says why
        if result == "no-thread":
            box.value = text
        return result


def show_waiting_messages(messages: list[Outgoing], why: str) -> None:
    """The messages that wait, under the box, with why; hidden once none waits."""
    node = dom.element("sw-outbox-messages")
    if node is None:
        return
    node.dataset.waiting = str(len(messages))
    node.hidden = not messages
    dom.set_html(node, render_template("outbox_messages.j2", messages=messages, why=why) if messages else "")
