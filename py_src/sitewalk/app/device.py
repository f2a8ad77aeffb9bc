"""The app's own prompt before a device tool runs: what it is for, and the inspector's answer.

One modal `<dialog>` (native: focus moves into it and stays there, Escape declines), built once
and reused. The purpose comes from the agent and is shown as text, never as HTML.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..bridge import dom, files, tasks
from ..ui.render import render_template

__all__ = ["RequestDialog"]

DIALOG_ID = "sw-device-dialog"


class RequestDialog:
    def __init__(self) -> None:
        self._node: Any = None
        self._answer: asyncio.Future[bool] | None = None
        self._lock = asyncio.Lock()

    def _build(self) -> Any:
        if self._node is None:
            node = dom.create("dialog")
            node.id = DIALOG_ID
            node.className = "sw-dialog"
            node.setAttribute("aria-labelledby", "sw-device-dialog-title")
            node.setAttribute("aria-describedby", "sw-device-dialog-purpose sw-device-dialog-note")
            dom.set_html(node, render_template("device_dialog.j2"))
            dom.append_to_body(node)
            tasks.on("sw-device-allow", "click", lambda _e: self._settle(True))
            tasks.on("sw-device-decline", "click", lambda _e: self._settle(False))
            tasks.on(DIALOG_ID, "cancel", lambda _e: self._settle(False))  # Escape
            tasks.on("sw-device-file", "change", lambda _e: self._file_changed())
            self._node = node
        return self._node

    def _settle(self, allowed: bool) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(allowed)

    def _file_changed(self) -> None:
        dom.element("sw-device-allow").disabled = self._file() is None

    def _file(self) -> Any:
        return files.picked_file("sw-device-file")

    async def ask(self, *, tool: str, title: str, purpose: str, note: str, allow: str = "Allow",
                  decline: str = "Decline", with_file: bool = False) -> tuple[bool, Any]:
        """Show the prompt and wait; returns (allowed, picked file or None). Cancelling the call closes it."""
        async with self._lock:
            node = self._build()
            node.dataset.tool = tool
            dom.element("sw-device-dialog-title").textContent = title
            dom.element("sw-device-dialog-purpose").textContent = purpose
            dom.element("sw-device-dialog-note").textContent = note
            dom.element("sw-device-allow").textContent = allow
            dom.element("sw-device-decline").textContent = decline
            dom.element("sw-device-dialog-file").hidden = not with_file
            picker = dom.element("sw-device-file")
            picker.value = ""
            dom.element("sw-device-allow").disabled = with_file  # a photo must be picked first
            self._answer = asyncio.get_event_loop().create_future()
            node.showModal()
            try:
                allowed = await self._answer
                return allowed, (self._file() if allowed and with_file else None)
            finally:
                self._answer = None
                if node.open:
                    node.close()
                picker.value = ""
