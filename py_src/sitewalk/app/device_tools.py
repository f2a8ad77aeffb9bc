"""This device's headless tools (drafts in IndexedDB, the position, a photo's fingerprint), built at first use.

The registry checks every call against the tools' pydantic contracts, so building it imports pydantic and
`sitewalk_shared.contracts`: at the phone profile (4x CPU) that is over a second the first screen does without.
`DeviceTools.get()` builds it the first time an inspection starts or reopens, a draft is saved, or the
developer details are opened, and names the tools there (`dev_meta.j2`) once it exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..base import trace_hooks
from ..bridge import dom, files, geolocation, permissions, storage, tasks
from ..ui.templating import render_template

if TYPE_CHECKING:
    from ..headless.manual_position import ManualPosition
    from ..headless.registry import HeadlessToolRegistry, ToolFailed
    from .device import RequestDialog

__all__ = ["DeviceTools"]

# A tool that waits for the inspector's answer gets longer than the registry's default.
PROMPT_TIMEOUT_S = 300.0
DEV_DETAILS, DEV_META = "sw-dev", "sw-dev-meta"


class DeviceTools:
    def __init__(self, drafts: storage.IndexedDbStore, server_url: str, on_asking: Callable[[bool], None]) -> None:
        self._drafts = drafts
        self._server_url = server_url
        self._on_asking = on_asking  # a tool's dialog opened or closed (the status line)
        self._registry: HeadlessToolRegistry | None = None

    def attach(self) -> None:
        """The developer details name the server now, and the tools once built (opening them builds them)."""
        self._show_meta(None)
        tasks.on(DEV_DETAILS, "toggle", lambda _event: self.get())

    def get(self) -> HeadlessToolRegistry:
        if self._registry is None:
            self._registry = _registry(self._drafts, self._on_asking)
            self._show_meta(self._registry.manifest())
        return self._registry

    def _show_meta(self, tools: dict[str, str] | None) -> None:
        dom.set_html(DEV_META, render_template("dev_meta.j2", server_url=self._server_url, tools=tools))


def _registry(drafts: storage.IndexedDbStore, on_asking: Callable[[bool], None]) -> HeadlessToolRegistry:
    from ..headless import HeadlessToolRegistry, read_local_draft, save_local_draft, start_blank_draft
    from ..headless.permissions import DevicePermissions
    from .device import RequestDialog

    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(drafts, legacy=storage.LocalStorageStore()))
    registry.register("save_local_draft", save_local_draft(drafts))
    registry.register("start_blank_draft", start_blank_draft(drafts, legacy=storage.LocalStorageStore()))
    _register_device_tools(registry, RequestDialog(on_asking=on_asking))
    registry.permissions = DevicePermissions(permissions.query)  # a replay asking a denied one: typed or refused
    return registry


def _register_device_tools(registry: HeadlessToolRegistry, dialog: RequestDialog) -> None:
    from ..headless.location import get_current_location
    from ..headless.photo import MAX_PHOTO_BYTES, attach_photo

    async def ask_location(purpose: str) -> str:
        return await dialog.choose(
            tool="get_current_location", title="Share this device's position?", purpose=purpose,
            note="Only the coordinates, their accuracy and the time of the fix are sent to the agent. "
                 "If you allow, your browser may ask you as well.",
            allow="Allow", decline="Decline", alternative="Type the position")

    async def locate(args: Any) -> dict[str, Any]:
        await trace_hooks.permission("geolocation", permissions.query)  # a span with tracing on; off, not asked
        return await geolocation.geolocate(args.timeout_ms, args.high_accuracy)

    async def type_position(purpose: str, failure: ToolFailed | None) -> ManualPosition | None:
        why = f"The device gave no position: {failure.message}." if failure is not None else ""
        return await dialog.type_position(
            title="Type the position?", purpose=purpose,
            note=f"{why} You can type it instead, in decimal degrees; the agent is told it was typed.".strip())

    async def pick_photo(purpose: str) -> dict[str, Any] | None:
        allowed, file = await dialog.ask(
            tool="attach_photo", title="Attach a photo?", purpose=purpose,
            note="The photo stays on this device: only its name, size, type and SHA-256 fingerprint are sent.",
            allow="Attach", decline="Cancel", with_file=True)
        if not allowed or file is None:
            return None
        return await files.file_metadata(file, MAX_PHOTO_BYTES)

    registry.register("get_current_location", get_current_location(ask_location, locate, type_position),
                      timeout_s=PROMPT_TIMEOUT_S)
    registry.register("attach_photo", attach_photo(pick_photo), timeout_s=PROMPT_TIMEOUT_S)
