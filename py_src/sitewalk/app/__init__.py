"""The Sitewalk app in the browser: wires the session, the headless tools and the DOM view.

Entry point `main(config)` is called by web/boot.js once the packages are loaded.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from .. import bridge
from ..agentserver.client import AgentServerClient
from ..agentserver.errors import AgentServerError
from ..headless import HeadlessToolRegistry, read_local_draft, save_local_draft
from ..headless.location import get_current_location
from ..headless.photo import attach_photo
from ..session import InspectionSession
from ..ui.render import render_template
from .device import RequestDialog
from .view import DomView

__all__ = ["main"]


async def main(config: Any) -> None:
    if hasattr(config, "to_py"):
        config = config.to_py()
    server_url = str(config["agentServerUrl"]).rstrip("/")
    client = AgentServerClient(server_url)
    await _wait_for_server(client, server_url)

    drafts = bridge.IndexedDbStore()  # localStorage keeps small settings only; old drafts move over on read
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(drafts, legacy=bridge.LocalStorageStore()))
    registry.register("save_local_draft", save_local_draft(drafts))
    _register_device_tools(registry, RequestDialog())

    bridge.set_html("app", render_template("app.j2", server_url=server_url, tools=registry.manifest()))
    bridge.shell().showApp()
    view = DomView()

    async def start(_event: Any) -> None:
        inspection_id = bridge.element("sw-inspection-id").value.strip()
        if not inspection_id:
            bridge.show_status("Enter an inspection id first.", error=True)
            return
        view.reset()
        session = InspectionSession(client, registry, view)
        bridge.element("sw-start").disabled = True
        try:
            await session.start(inspection_id, note=bridge.element("sw-note").value.strip())
            bridge.show_status(f"Inspection {inspection_id}: run finished")
        finally:
            bridge.element("sw-start").disabled = False

    async def save_draft(_event: Any) -> None:
        inspection_id = bridge.element("sw-inspection-id").value.strip()
        if not inspection_id:
            bridge.show_status("Enter an inspection id first.", error=True)
            return
        findings = [line.strip() for line in bridge.element("sw-draft-findings").value.splitlines() if line.strip()]
        draft = {
            "inspection_id": inspection_id,
            "site": bridge.element("sw-draft-site").value,
            "inspector": bridge.element("sw-draft-inspector").value,
            "findings": findings,
            "risk": bridge.element("sw-draft-risk").value,
        }
        # The same implementation, checks and envelope as when the agent calls save_local_draft.
        envelope = await registry.run({"id": f"local-save-{uuid.uuid4().hex[:12]}", "name": "save_local_draft",
                                       "args": draft})
        if envelope["ok"]:
            bridge.show_status(f"Draft for {inspection_id} saved on this device.")
        else:
            error = envelope["error"]
            bridge.show_status(f"Draft not saved: {error['code']}: {error['message']}", error=True)

    bridge.on("sw-start", "click", start)
    bridge.on("sw-save-draft", "click", save_draft)
    bridge.mark_ready()


# A tool that waits for the inspector's answer gets longer than the registry's default.
PROMPT_TIMEOUT_S = 300.0


def _register_device_tools(registry: HeadlessToolRegistry, dialog: RequestDialog) -> None:
    async def ask_location(purpose: str) -> bool:
        allowed, _ = await dialog.ask(
            tool="get_current_location", title="Share this device's position?", purpose=purpose,
            note="Only the coordinates, their accuracy and the time of the fix are sent to the agent. "
                 "If you allow, your browser may ask you as well.",
            allow="Allow", decline="Decline")
        return allowed

    async def locate(args: Any) -> dict[str, Any]:
        return await bridge.geolocate(args.timeout_ms, args.high_accuracy)

    async def pick_photo(purpose: str) -> Optional[dict[str, Any]]:
        allowed, file = await dialog.ask(
            tool="attach_photo", title="Attach a photo?", purpose=purpose,
            note="The photo stays on this device: only its name, size, type and SHA-256 fingerprint are sent.",
            allow="Attach", decline="Cancel", with_file=True)
        if not allowed or file is None:
            return None
        return await bridge.file_metadata(file)

    registry.register("get_current_location", get_current_location(ask_location, locate), timeout_s=PROMPT_TIMEOUT_S)
    registry.register("attach_photo", attach_photo(pick_photo), timeout_s=PROMPT_TIMEOUT_S)


async def _wait_for_server(client: AgentServerClient, server_url: str) -> None:
    """Block on the shell's error screen until the agent server answers; Retry checks again."""
    while True:
        try:
            await client.ok()
            bridge.shell().hideError()
            return
        except AgentServerError as exc:
            bridge.shell().showError(f"Cannot reach the agent server at {server_url}", f"{type(exc).__name__}: {exc}")
            await bridge.wait_for_retry()
