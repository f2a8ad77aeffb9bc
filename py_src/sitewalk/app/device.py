"""The app's own prompt before a device tool runs: what it is for, and the inspector's answer.

One modal `<dialog>` (native: focus moves into it and stays there, Escape declines), built once
and reused. The purpose comes from the agent and is shown as text, never as HTML. The same dialog
takes a typed position when the device gives none (`type_position`): its fields are checked by
`headless.manual_position`, and a wrong field is named under it while the dialog stays open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from ..bridge import dom, files, tasks
from ..headless.manual_position import ManualPosition, PositionIssue, type_until_valid
from ..ui.templating import render_template

__all__ = ["RequestDialog"]

DIALOG_ID = "sw-device-dialog"
ALLOW, DECLINE, TYPE = "allow", "decline", "type"
_FIELDS = MappingProxyType({"latitude": "sw-device-lat", "longitude": "sw-device-lon"})  # read-only


class RequestDialog:
    def __init__(self, on_asking: Callable[[bool], None] | None = None) -> None:
        self.on_asking = on_asking  # told when the dialog opens (True) and closes (False): the status line
        self._node: Any = None
        self._answer: asyncio.Future[str] | None = None
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
            tasks.on("sw-device-allow", "click", lambda _e: self._settle(ALLOW))
            tasks.on("sw-device-decline", "click", lambda _e: self._settle(DECLINE))
            tasks.on("sw-device-type", "click", lambda _e: self._settle(TYPE))
            tasks.on(DIALOG_ID, "cancel", lambda _e: self._settle(DECLINE))  # Escape
            tasks.on("sw-device-file", "change", lambda _e: self._file_changed())
            for field_id in _FIELDS.values():  # Enter in a field sends, as in a form
                tasks.on(field_id, "keydown", lambda e: self._settle(ALLOW) if e.key == "Enter" else None)
            self._node = node
        return self._node

    def _settle(self, choice: str) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(choice)

    def _file_changed(self) -> None:
        dom.element("sw-device-allow").disabled = self._file() is None

    def _file(self) -> Any:
        return files.picked_file("sw-device-file")

    def _show(self, *, tool: str, title: str, purpose: str, note: str, allow: str, decline: str,
              alternative: str | None = None, with_file: bool = False, manual: bool = False) -> Any:
        node = self._build()
        if self.on_asking is not None:
            self.on_asking(True)
        node.dataset.tool = tool
        node.dataset.mode = "manual" if manual else "ask"
        dom.element("sw-device-dialog-title").textContent = title
        dom.element("sw-device-dialog-purpose").textContent = purpose
        dom.element("sw-device-dialog-note").textContent = note
        dom.element("sw-device-allow").textContent = allow
        dom.element("sw-device-decline").textContent = decline
        other = dom.element("sw-device-type")
        other.hidden = alternative is None
        other.textContent = alternative or ""
        dom.element("sw-device-dialog-file").hidden = not with_file
        dom.element("sw-device-dialog-manual").hidden = not manual
        dom.element("sw-device-file").value = ""
        dom.element("sw-device-allow").disabled = with_file  # a photo must be picked first
        return node

    async def _wait(self) -> str:
        self._answer = asyncio.get_event_loop().create_future()
        try:
            return await self._answer
        finally:
            self._answer = None

    def _close(self, node: Any) -> None:
        if node.open:
            node.close()
        dom.element("sw-device-file").value = ""
        if self.on_asking is not None:
            self.on_asking(False)

    async def choose(self, *, tool: str, title: str, purpose: str, note: str, allow: str = "Allow",
                     decline: str = "Decline", alternative: str | None = None) -> str:
        """Show the prompt and wait: ALLOW, DECLINE, or TYPE (the `alternative` button, when given)."""
        async with self._lock:
            node = self._show(tool=tool, title=title, purpose=purpose, note=note, allow=allow, decline=decline,
                              alternative=alternative)
            node.showModal()
            try:
                return await self._wait()
            finally:
                self._close(node)

    async def ask(self, *, tool: str, title: str, purpose: str, note: str, allow: str = "Allow",
                  decline: str = "Decline", with_file: bool = False) -> tuple[bool, Any]:
        """Show the prompt and wait; returns (allowed, picked file or None). Cancelling the call closes it."""
        async with self._lock:
            node = self._show(tool=tool, title=title, purpose=purpose, note=note, allow=allow, decline=decline,
                              with_file=with_file)
            node.showModal()
            try:
                allowed = await self._wait() == ALLOW
                return allowed, (self._file() if allowed and with_file else None)
            finally:
                self._close(node)

    async def type_position(self, *, title: str, purpose: str, note: str) -> ManualPosition | None:
        """The position the inspector types (checked; the dialog stays open while a field is wrong),
        or None when they choose not to share one."""
        async with self._lock:
            node = self._show(tool="get_current_location", title=title, purpose=purpose, note=note,
                              allow="Send", decline="Don't share", manual=True)
            for field_id in _FIELDS.values():
                dom.element(field_id).value = ""
            self._show_issues([])
            node.showModal()
            dom.element(_FIELDS["latitude"]).focus()
            try:
                return await type_until_valid(self._read_typed)
            finally:
                self._close(node)

    async def _read_typed(self, issues: list[PositionIssue]) -> tuple[str, str] | None:
        self._show_issues(issues)
        if await self._wait() != ALLOW:
            return None
        return str(dom.element(_FIELDS["latitude"]).value), str(dom.element(_FIELDS["longitude"]).value)

    @staticmethod
    def _show_issues(issues: list[PositionIssue]) -> None:
        """Each field's error under it (text, never HTML); the first wrong field takes the focus."""
        by_field = {issue.field: issue.message for issue in issues}
        for field, field_id in _FIELDS.items():
            message = by_field.get(field)
            error = dom.element(f"{field_id}-error")
            error.textContent = message or ""
            error.hidden = message is None
            dom.element(field_id).setAttribute("aria-invalid", "true" if message else "false")
        first = next((f for f in _FIELDS if f in by_field), None)
        if first is not None:
            dom.element(_FIELDS[first]).focus()
