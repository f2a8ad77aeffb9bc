"""The Sitewalk app in the browser: wires the session, the headless tools and the DOM view.

Entry point `main(config)` is called by web/boot.js once the packages are loaded.

What loads when: the modules imported here are what the first screen needs (the client, the sign-in,
the list of inspections, the form). Every feature behind a press is imported at its first use, by the
part that first needs it: the headless tools and their pydantic contracts (`device_tools.DeviceTools`),
the session machinery, the timeline and the cards (`sessions.Sessions.new`), the audit trail
(`audit_view.AuditView.show`). At a phone's CPU, importing them all cost the first screen seconds.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base.server_errors import AgentServerError, Forbidden, NotFound, Unauthorized
from ..bridge import dom, storage, tasks
from ..bridge.fetch import BrowserTransport
from ..bridge.values import or_none
from ..session.progress import StuckPolicy
from ..session.stuck_limits import stall_limit, stuck_policy
from ..signin import SignIn
from ..site_policy import ServerNotAllowed, check_server
from ..ui.first_screen import first_screen
from ..ui.seen_inspections import KEY as SEEN_KEY
from .audit_view import AuditView
from .composer import Composer
from .device_tools import DeviceTools
from .inspections_view import InspectionsView, device_id
from .sessions import Sessions
from .signin_view import SignInView
from .start_form import FORM as START_FORM
from .start_form import fold_start_form, unfold_start_form
from .status_line import StatusLine, settle

if TYPE_CHECKING:
    from ..inspection_status import InspectionStatus
    from ..inspections import Inspection
    from ..session import InspectionSession

__all__ = ["main"]


async def main(config: Any) -> None:
    if hasattr(config, "to_py"):
        config = config.to_py()
    server_url = str(config["agentServerUrl"]).rstrip("/")
    # The page's one Trusted Types policy is ours before anything else runs; it vouches for sw.js too.
    dom.claim_policy(str(config.get("serviceWorkerUrl") or ""))
    if not _server_allowed(server_url, config):
        return
    stall, stall_problems = stall_limit(or_none(config.get("stallParam")), or_none(config.get("streamStallSeconds")))
    client = AgentServerClient(server_url, transport=BrowserTransport(), stall_seconds=stall)
    signin = SignIn(client, storage.LocalStorageStore())
    signin.restore()  # a token this device kept for this server goes with every request from now on
    if config.get("traces") is True:  # device tracing (issue 27): off, its package is never imported
        _start_tracing(client)
    await _wait_for_server(client, server_url)

    drafts = storage.IndexedDbStore()  # localStorage keeps small settings only; old drafts move over on read
    tools = DeviceTools(drafts, server_url, on_asking=_status_line.asking)  # built at first use
    if dom.element("sw-start") is None:  # a page without the build's pre-rendered first screen
        dom.set_html("app", first_screen())
    # Otherwise the app attaches to the first screen as it is: what was typed meanwhile, and the focus, stay.
    tools.attach()  # the developer details name the server, and the tools once built
    dom.show_app()
    # The assistant (graph) to talk to is configuration, like the server URL; so are the stuck-run limits.
    def on_status(inspection_id: str, status: InspectionStatus) -> None:
        """After a run: the status line, and the list in the same words."""
        _status_line.show(inspection_id, status)
        tasks.spawn(listed.refresh())

    sessions = Sessions(client, tools.get, drafts, assistant_id=str(config.get("assistantId") or "inspection"),
                        owner=signin.owner, stuck_policy=_stuck_policy(config, stall_problems),
                        on_status=on_status)
    device = device_id()  # put into each new thread's metadata: the list finds this device's threads by it
    listed = InspectionsView(client, device, lambda entry: _open_inspection(entry, sessions, listed),
                             sessions.thread_id)
    listed.attach()
    Composer(sessions.current).attach()
    AuditView(client, sessions.thread_id, owner=signin.owner).attach()
    signin_view = SignInView(signin, on_signed_in=lambda: _signed_in(client, sessions, listed),
                             on_signed_out=_signed_out)
    signin_view.attach()
    client.on_unauthorized = signin_view.required  # any 401, from any part of the app, asks for a sign-in
    tasks.on("sw-start", "click", lambda _event: _start(sessions, device, listed))
    tasks.on("sw-save-draft", "click", lambda _event: _save_draft(tools))
    pressed_early = dom.take_first_press()  # after our listener is on: each press is taken once, by one of them
    dom.mark_ready()
    if pressed_early:  # the press starts the inspection in the form; the last one is not reopened over it
        tasks.spawn(_start(sessions, device, listed))
        await listed.refresh()
        return
    await listed.refresh()
    await _rejoin(client, sessions)
    await listed.refresh()  # the reopened inspection's status may have changed meanwhile


async def _signed_in(client: AgentServerClient, sessions: Sessions, listed: InspectionsView) -> None:
    """Carry on where the sign-in was asked for: the list, and the inspection that was open (unless one runs),
    in the same session, so the messages its outbox kept for the sign-in are sent now."""
    await listed.refresh()
    if "session" not in _current:
        await _rejoin(client, sessions)


def _start_tracing(client: AgentServerClient) -> None:
    from ..bridge.boot_marks import boot_marks
    from ..tracing import start

    start(client.send_device_spans, tasks.spawn, boot_marks, kept=storage.LocalStorageStore())


def _signed_out() -> None:
    settings = storage.LocalStorageStore()
    settings.remove(THREAD_SETTING)  # the open inspection was the signed-out inspector's
    settings.remove(SEEN_KEY)  # and so was the list kept for the next visit's first paint
    dom.reload()


def _stuck_policy(config: Any, stall_problems: list[str]) -> StuckPolicy:
    """The stuck-run limits from ?stuck= or config.json; a bad value (of these or of the stall limit) is said
    (status line, console), not used."""
    # JS null (no ?stuck=, no stuckSeconds) comes over as jsnull, not None
    policy, problems = stuck_policy(or_none(config.get("stuckParam")), or_none(config.get("stuckSeconds")))
    problems = stall_problems + problems
    for problem in problems:
        tasks.log_error(f"sitewalk: {problem}")
    if problems:
        dom.show_status(" ".join(problems), error=True)
    return policy


def _inspection_id() -> str | None:
    """The inspection id in the form, or None (with a word to the inspector) when it is empty."""
    inspection_id = str(dom.element("sw-inspection-id").value).strip()
    if not inspection_id:
        dom.show_status("Enter an inspection id first.", error=True)
        return None
    return inspection_id


async def _start(sessions: Sessions, device: str, listed: InspectionsView) -> None:
    inspection_id = _inspection_id()
    if inspection_id is None:
        return
    sessions.view().reset()
    session = sessions.new(on_thread=lambda thread_id: _remember_thread(thread_id, inspection_id))
    note = str(dom.element("sw-note").value).strip()
    await _running(inspection_id, session, session.start(inspection_id, note=note, metadata={"device_id": device}))
    await listed.refresh()


async def _save_draft(tools: DeviceTools) -> None:
    inspection_id = _inspection_id()
    if inspection_id is None:
        return
    findings = [line.strip() for line in str(dom.element("sw-draft-findings").value).splitlines() if line.strip()]
    draft = {
        "inspection_id": inspection_id,
        "site": dom.element("sw-draft-site").value,
        "inspector": dom.element("sw-draft-inspector").value,
        "findings": findings,
        "risk": dom.element("sw-draft-risk").value or None,  # "not set" until the inspector picks a level
        "notes": dom.element("sw-draft-notes").value,  # kept here; reading it back sends has_notes only
    }
    # The same implementation, checks and envelope as when the agent calls save_local_draft.
    envelope = await tools.get().run({"id": f"local-save-{uuid.uuid4().hex[:12]}", "name": "save_local_draft",
                                   "args": draft})
    if envelope["ok"]:
        dom.show_status(f"Draft for {inspection_id} saved on this device.")
    else:
        error = envelope["error"]
        dom.show_status(f"Draft not saved: {error['code']}: {error['message']}", error=True)


THREAD_SETTING = "sitewalk:current-thread"  # a small setting: {"thread_id", "inspection_id"}


def _remember_thread(thread_id: str, inspection_id: str) -> None:
    storage.LocalStorageStore().set(THREAD_SETTING, json.dumps({"thread_id": thread_id,
                                                               "inspection_id": inspection_id}))


async def _rejoin(client: AgentServerClient, sessions: Sessions) -> bool:
    """After a reload: reopen the last inspection whatever its state (its view restored from the
    server's state; a run going is followed, a headless tool waiting is answered, each call once)."""
    try:
        current = json.loads(storage.LocalStorageStore().get(THREAD_SETTING) or "null")
        thread_id, inspection_id = str(current["thread_id"]), str(current.get("inspection_id") or "")
    except (ValueError, TypeError, KeyError):
        return False
    try:
        state = await client.threads.get_state(thread_id)
    except (NotFound, Forbidden):  # gone (another server, deleted), or another inspector's: say so, once
        storage.LocalStorageStore().remove(THREAD_SETTING)
        dom.show_status(f"Inspection {inspection_id} (thread {thread_id}) cannot be opened: this agent server "
                        "has no such thread, or it is not yours.", error=True)
        return False
    except AgentServerError:
        return False  # unreachable, or a sign-in is asked for: the sign-in carries on from here
    from sitewalk_shared.contracts.headless_wire import parse_headless_interrupt  # not before a thread reopens

    waiting = any(parse_headless_interrupt(i.get("value")) is not None for i in pending_interrupts(state))
    field = dom.element("sw-inspection-id")
    if field.value == field.defaultValue:  # an id the inspector typed while Python booted stays theirs
        field.value = inspection_id
    dom.show_status(f"Inspection {inspection_id}: " + ("rejoined" if waiting else "reopened") + f" thread {thread_id}")
    session = sessions.for_thread(thread_id)  # after a sign-in: the session on screen, with its outbox
    await _running(inspection_id, session, session.reopen(thread_id))
    return True


_current: dict[str, Any] = {}  # the session the Cancel button cancels
_status_line = StatusLine()  # where the open inspection is, after each run (session.status_report)


async def _open_inspection(entry: Inspection, sessions: Sessions, listed: InspectionsView) -> None:
    """Open an inspection of the list: its view restored from the server's state, then carried on."""
    if "session" in _current:
        dom.show_status("An inspection is running: cancel it or wait for it before opening another.", error=True)
        return
    dom.element("sw-inspection-id").value = entry.inspection_id
    _remember_thread(entry.thread_id, entry.inspection_id)
    sessions.view().reset()
    session = sessions.new()
    await _running(entry.inspection_id, session, session.reopen(entry.thread_id))
    await listed.refresh()


async def _running(inspection_id: str, session: InspectionSession, work: Any) -> None:
    """Run a session's work with Start disabled and Cancel shown; a cancelled run says so."""
    cancel = dom.element("sw-cancel")
    if cancel is None:
        cancel = dom.create("button")
        cancel.id, cancel.type, cancel.className = "sw-cancel", "button", "sw-button-secondary"
        cancel.textContent = "Cancel"
        form = dom.element(START_FORM)  # after the foldable form: Cancel stays in sight when it is folded
        form.parentNode.insertBefore(cancel, form.nextSibling)
        tasks.on("sw-cancel", "click", _cancel_current)
    _current["session"] = session
    fold_start_form(inspection_id)
    _status_line.inspection_id = inspection_id
    dom.element("sw-start").disabled = True
    cancel.hidden = False
    try:
        try:
            await settle(work)
            if not session.cancelled:
                await session.show_reviews()  # what the thread waits on for review, read from the server
                await session.show_questions()  # and the questions it asks the inspector (the site walk)
        except Unauthorized:  # the sign-in form is up (the client's on_unauthorized); the page keeps everything
            unfold_start_form()
            dom.show_status(f"Inspection {inspection_id}: sign in to carry on; nothing is lost.", error=True)
            return
        if session.cancelled:
            storage.LocalStorageStore().remove(THREAD_SETTING)  # not rejoined after a reload
            dom.show_status(f"Inspection {inspection_id}: cancelled")
        # else the status line already says where it is: done, waiting for what, or failed and why
    finally:
        _current.pop("session", None)
        cancel.hidden = True
        dom.element("sw-start").disabled = False


async def _cancel_current(_event: object) -> None:
    session = _current.get("session")
    if session is not None:
        await session.cancel()


def _server_allowed(server_url: str, config: dict[str, Any]) -> bool:
    """False, with the error screen saying why, when the site's CSP would block the server (a `?server=`
    the site was not built for): otherwise every request would fail as if the server were down."""
    connect_src = config.get("connectSrc")
    try:
        check_server(server_url, None if connect_src is None else [str(s) for s in connect_src],
                     str(config.get("builtFor") or ""), str(config.get("baseUrl") or ""))
    except ServerNotAllowed as exc:
        dom.show_error(str(exc), f"{type(exc).__name__}: {exc.detail}")
        return False
    return True


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
