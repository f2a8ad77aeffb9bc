"""The list of this device's inspections: paged ("More"), each opened with one press.

The device id is random, made once and kept in localStorage; the app puts it into each new thread's
metadata, and the list finds the threads by it (`sitewalk.inspections`). Each list drawn is also kept on the
device, for the next visit to show before Python is up (`sitewalk.ui.seen_inspections`).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from ..agentserver.client import AgentServerClient
from ..base.device_errors import StorageError
from ..base.server_errors import AgentServerError, Unauthorized
from ..bridge import dom, storage, tasks
from ..bridge.presses import on_press
from ..inspections import Inspection, InspectionList
from ..ui.seen_inspections import KEY as SEEN_KEY
from ..ui.seen_inspections import seen_record
from ..ui.templating import render_template

__all__ = ["DEVICE_SETTING", "InspectionsView", "device_id"]

DEVICE_SETTING = "sitewalk:device-id"
SEEN_CAPTION = "sw-inspections-seen"  # says when the list boot.js drew was read


def device_id() -> str:
    """This device's id: made once, then read back (clearing the site's data makes a new device)."""
    settings = storage.LocalStorageStore()
    found = settings.get(DEVICE_SETTING)
    if isinstance(found, str) and found:
        return found
    made = f"device-{uuid.uuid4().hex}"
    settings.set(DEVICE_SETTING, made)
    return made


class InspectionsView:
    def __init__(self, client: AgentServerClient, device: str, open_one: Callable[[Inspection], Awaitable[None]],
                 current: Callable[[], str | None]) -> None:
        self.client = client
        self.device = device
        self.open_one = open_one
        self.current = current  # the thread on screen (marked in the list)
        self.list = InspectionList(client, device)
        self._newest = self.list

    def attach(self) -> None:
        tasks.on("sw-inspections-more", "click", self.more)
        on_press("sw-inspections", "button[data-thread-id]", self._on_click)  # the list is drawn anew as runs end

    async def refresh(self) -> None:
        """Read the list again from its first page (after a start, when a run ends). Of refreshes that
        overlap (a run ends while another refresh reads), the newest one is drawn."""
        fresh = InspectionList(self.client, self.device)
        self._newest = fresh
        if await self._read(fresh) and fresh is self._newest:
            self.list = fresh
            self._draw()

    async def more(self, _event: object = None) -> None:
        if await self._read(self.list):
            self._draw()

    async def _read(self, listed: InspectionList) -> bool:
        try:
            await listed.more()
        except Unauthorized:
            return False  # the sign-in form asks (app.signin_view); the status line keeps what it says
        except AgentServerError as exc:
            dom.show_status(f"Could not list this device's inspections: {exc}", error=True)
            return False
        return True

    def _draw(self) -> None:
        dom.set_html("sw-inspections", render_template("inspections.j2", entries=self.list.entries,
                                                        current=self.current()))
        dom.element("sw-inspections-more").hidden = not self.list.has_more
        dom.element(SEEN_CAPTION).hidden = True  # the list is read now, not as last read
        self._keep()

    def _keep(self) -> None:
        """Keep the list drawn for the next visit's first paint. A copy only: a device that cannot keep it
        (storage full, or off) shows the list once read, as before."""
        record = seen_record(self.client.base_url, self.list.entries, datetime.now(UTC).isoformat())
        try:
            storage.LocalStorageStore().set(SEEN_KEY, record)
        except StorageError as exc:
            tasks.log_error(f"sitewalk: the list of inspections is not kept for the next visit: {exc}")

    async def _on_click(self, event: Any) -> None:
        button = dom.closest(event.target, "button[data-thread-id]")
        if button is None:
            return
        thread_id = dom.attribute(button, "data-thread-id")
        entry = next((e for e in self.list.entries if e.thread_id == thread_id), None)
        if entry is not None:
            await self.open_one(entry)
