"""The Sitewalk app in the browser: wires the session, the headless tools and the DOM view.

Entry point `main(config)` is called by web/boot.js once the packages are loaded.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..agentserver.errors import AgentServerError
from ..bridge import dom, files, geolocation, storage, tasks
from ..headless import HeadlessToolRegistry, headless_tool_call, read_local_draft, save_local_draft
from ..headless.delivery import AnswerBook, AuditLog, ContractMismatch
from ..headless.location import get_current_location
from ..headless.photo import MAX_PHOTO_BYTES, attach_photo
from ..ui.render import render_template
from .audit_view import AuditView
from .composer import Composer, show_waiting_messages
from .device import RequestDialog
from .inspections_view import InspectionsView, device_id
from .review_view import ReviewCardsView

if TYPE_CHECKING:
    from ..inspections import Inspection
    from ..session import InspectionSession
    from .view import DomView

__all__ = ["main"]


async def main(config: Any) -> None:
    if hasattr(config, "to_py"):
        config = config.to_py()
    server_url = str(config["agentServerUrl"]).rstrip("/")
    assistant_id = str(config.get("assistantId") or "inspection")  # the graph to talk to, like the server URL
    client = AgentServerClient(server_url)
    await _wait_for_server(client, server_url)

    drafts = storage.IndexedDbStore()  # localStorage keeps small settings only; old drafts move over on read
    registry = HeadlessToolRegistry()
    registry.register("read_local_draft", read_local_draft(drafts, legacy=storage.LocalStorageStore()))
    registry.register("save_local_draft", save_local_draft(drafts))
    _register_device_tools(registry, RequestDialog())

    dom.set_html("app", render_template("app.j2", server_url=server_url, tools=registry.manifest()))
    dom.show_app()
    views: list[DomView] = []  # one view for every session, built with the first
    answers = AnswerBook(drafts)  # answers kept before sending: each call runs once, across reloads
    mismatches: list[ContractMismatch] = []

    def show_mismatch(mismatch: ContractMismatch) -> None:
        mismatches.append(mismatch)
        _show_contract_mismatches(mismatches)

    def view() -> DomView:
        if not views:
            # Local: the screen renderer and the timeline are needed once an inspection runs,
            # not to paint the first screen (main() returns sooner without them).
            from .view import DomView

            views.append(DomView(on_action=act))
            from .timeline_view import TimelineControls  # replay, fork, branches: with the first view

            TimelineControls(lambda: newest[-1] if newest else None).attach()
        return views[0]

    newest: list[InspectionSession] = []  # the session a ConfirmButton speaks to: the newest one
    review_cards = ReviewCardsView(on_submit=lambda decisions: _review(newest, decisions))  # per-call reviews

    def act(element_id: str, action: str, subject: str) -> Any:
        return newest[-1].act(element_id, action, subject) if newest else None

    def new_session(on_thread: Callable[[str], None] | None = None) -> InspectionSession:
        # Local: the session's streaming, timeline and screen machinery (and jsonpatch) is
        # imported when the first inspection starts or is rejoined, not at boot.
        from ..session import Hooks, InspectionSession

        hooks = Hooks(book=answers, audit=AuditLog(drafts), on_contract_mismatch=show_mismatch,
                      on_outbox=_show_outbox, on_thread=on_thread, wait_for_network=tasks.wait_for_online,
                      on_messages=show_waiting_messages, review_cards=review_cards)
        newest[:] = [InspectionSession(client, registry, view(), hooks, assistant_id=assistant_id)]
        return newest[0]

    async def start(_event: Any) -> None:
        inspection_id = dom.element("sw-inspection-id").value.strip()
        if not inspection_id:
            dom.show_status("Enter an inspection id first.", error=True)
            return
        view().reset()
        session = new_session(on_thread=lambda thread_id: _remember_thread(thread_id, inspection_id))
        await _running(inspection_id, session, session.start(inspection_id, note=dom.element("sw-note").value.strip(),
                                                             metadata={"device_id": device}))
        await listed.refresh()


    async def save_draft(_event: Any) -> None:
        inspection_id = dom.element("sw-inspection-id").value.strip()
        if not inspection_id:
            dom.show_status("Enter an inspection id first.", error=True)
            return
        findings = [line.strip() for line in dom.element("sw-draft-findings").value.splitlines() if line.strip()]
        draft = {
            "inspection_id": inspection_id,
            "site": dom.element("sw-draft-site").value,
            "inspector": dom.element("sw-draft-inspector").value,
            "findings": findings,
            "risk": dom.element("sw-draft-risk").value,
            "notes": dom.element("sw-draft-notes").value,  # kept here; reading it back sends has_notes only
        }
        # The same implementation, checks and envelope as when the agent calls save_local_draft.
        envelope = await registry.run({"id": f"local-save-{uuid.uuid4().hex[:12]}", "name": "save_local_draft",
                                       "args": draft})
        if envelope["ok"]:
            dom.show_status(f"Draft for {inspection_id} saved on this device.")
        else:
            error = envelope["error"]
            dom.show_status(f"Draft not saved: {error['code']}: {error['message']}", error=True)

    device = device_id()  # put into each new thread's metadata: the list finds this device's threads by it
    listed = InspectionsView(client, device, lambda entry: _open_inspection(entry, view(), new_session, listed),
                             lambda: getattr(next(iter(newest), None), "thread_id", None))
    listed.attach()
    Composer(lambda: next(iter(newest), None)).attach()
    AuditView(client, lambda: getattr(next(iter(newest), None), "thread_id", None)).attach()
    tasks.on("sw-start", "click", start)
    tasks.on("sw-save-draft", "click", save_draft)
    dom.mark_ready()
    await listed.refresh()
    await _rejoin(client, new_session)
    await listed.refresh()  # the reopened inspection's status may have changed meanwhile


THREAD_SETTING = "sitewalk:current-thread"  # a small setting: {"thread_id", "inspection_id"}


def _remember_thread(thread_id: str, inspection_id: str) -> None:
    storage.LocalStorageStore().set(THREAD_SETTING, json.dumps({"thread_id": thread_id,
                                                               "inspection_id": inspection_id}))


async def _rejoin(client: AgentServerClient, new_session: Any) -> bool:
    """After a reload: reopen the last inspection whatever its state (its view restored from the
    server's state; a run going is followed, a headless tool waiting is answered, each call once)."""
    try:
        current = json.loads(storage.LocalStorageStore().get(THREAD_SETTING) or "null")
        thread_id, inspection_id = str(current["thread_id"]), str(current.get("inspection_id") or "")
    except (ValueError, TypeError, KeyError):
        return False
    try:
        state = await client.threads.get_state(thread_id)
    except AgentServerError:
        return False  # gone (another server, or deleted): nothing to carry on with
    waiting = any(headless_tool_call(i.get("value")) for i in pending_interrupts(state))
    dom.element("sw-inspection-id").value = inspection_id
    dom.show_status(f"Inspection {inspection_id}: " + ("rejoined" if waiting else "reopened") + f" thread {thread_id}")
    session = new_session()
    await _running(inspection_id, session, session.reopen(thread_id))
    return True


_current: dict[str, Any] = {}  # the session the Cancel button cancels


async def _open_inspection(entry: Inspection, view: DomView, new_session: Any, listed: InspectionsView) -> None:
    """Open an inspection of the list: its view restored from the server's state, then carried on."""
    if "session" in _current:
        dom.show_status("An inspection is running: cancel it or wait for it before opening another.", error=True)
        return
    dom.element("sw-inspection-id").value = entry.inspection_id
    _remember_thread(entry.thread_id, entry.inspection_id)
    view.reset()
    session = new_session()
    await _running(entry.inspection_id, session, session.reopen(entry.thread_id))
    await listed.refresh()


async def _running(inspection_id: str, session: InspectionSession, work: Any) -> None:
    """Run a session's work with Start disabled and Cancel shown; a cancelled run says so."""
    cancel = dom.element("sw-cancel")
    if cancel is None:
        cancel = dom.create("button")
        cancel.id, cancel.type, cancel.className = "sw-cancel", "button", "sw-button-secondary"
        cancel.textContent = "Cancel"
        start = dom.element("sw-start")
        start.parentNode.insertBefore(cancel, start.nextSibling)
        tasks.on("sw-cancel", "click", _cancel_current)
    _current["session"] = session
    dom.element("sw-start").disabled = True
    cancel.hidden = False
    try:
        await work
        if not session.cancelled:
            await session.show_reviews()  # what the thread waits on for review, read from the server
        if session.cancelled:
            storage.LocalStorageStore().remove(THREAD_SETTING)  # not rejoined after a reload
            dom.show_status(f"Inspection {inspection_id}: cancelled")
        else:
            dom.show_status(f"Inspection {inspection_id}: run finished")
    finally:
        _current.pop("session", None)
        cancel.hidden = True
        dom.element("sw-start").disabled = False


async def _review(newest: list[InspectionSession], decisions: dict[str, dict[str, Any]]) -> None:
    """Review decisions go to the newest session (the inspection on screen)."""
    if newest:
        await newest[-1].review(decisions)


async def _cancel_current(_event: Any) -> None:
    session = _current.get("session")
    if session is not None:
        await session.cancel()


def _show_outbox(waiting: int) -> None:
    """'Waiting for the network' while answers sit in the outbox; hidden once they are delivered."""
    status = dom.element("sw-status")
    node = dom.ensure_element("sw-outbox", "p", "sw-outbox", "status", status.parentNode, status.nextSibling)
    node.dataset.waiting = str(waiting)
    node.hidden = not waiting
    node.textContent = (f"Waiting for the network: {waiting} answer{'s' if waiting != 1 else ''} kept on this "
                        "device, sent once the agent server can be reached.") if waiting else ""


def _show_contract_mismatches(mismatches: list[ContractMismatch]) -> None:
    """The visible version-mismatch state: one banner above the app, each tool with both digests."""
    app = dom.element("app")
    node = dom.ensure_element("sw-contract-mismatch", "section", "sw-contract-mismatch", "alert", app, app.firstChild)
    node.innerHTML = render_template("contract_mismatch.j2", mismatches=mismatches)


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
        return await geolocation.geolocate(args.timeout_ms, args.high_accuracy)

    async def pick_photo(purpose: str) -> dict[str, Any] | None:
        allowed, file = await dialog.ask(
            tool="attach_photo", title="Attach a photo?", purpose=purpose,
            note="The photo stays on this device: only its name, size, type and SHA-256 fingerprint are sent.",
            allow="Attach", decline="Cancel", with_file=True)
        if not allowed or file is None:
            return None
        return await files.file_metadata(file, MAX_PHOTO_BYTES)

    registry.register("get_current_location", get_current_location(ask_location, locate), timeout_s=PROMPT_TIMEOUT_S)
    registry.register("attach_photo", attach_photo(pick_photo), timeout_s=PROMPT_TIMEOUT_S)


async def _wait_for_server(client: AgentServerClient, server_url: str) -> None:
    """Block on the shell's error screen until the agent server answers; Retry checks again."""
    while True:
        try:
            await client.ok()
            dom.hide_error()
            return
        except AgentServerError as exc:
            dom.show_error(f"Cannot reach the agent server at {server_url}", f"{type(exc).__name__}: {exc}")
            await tasks.wait_for_retry()
