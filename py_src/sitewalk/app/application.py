"""The app on one page: an `App` owns what the page holds, built once by `main` and handed to what needs it.

It owns the agent-server client (and the sign-in whose token goes with it), the inspection sessions, the list
of this device's inspections, the status line and the running inspection; the page's controls call its
methods (Start, Save draft, an entry of the list, a sign-in). Nothing of it lives in a module global, so
nothing outlives the page's App or is shared behind a signature (tests/unit/test_app_has_no_module_state.py).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..base.server_errors import AgentServerError, Forbidden, NotFound
from ..bridge import dom, storage, tasks
from ..signin import SignIn
from ..ui.first_screen import first_screen
from ..ui.seen_inspections import KEY as SEEN_KEY
from .audit_view import AuditView
from .composer import Composer
from .config import AppConfig
from .device_tools import DeviceTools
from .inspections_view import InspectionsView, device_id
from .kept_thread import forget_thread, keep_thread, kept_thread
from .running import RunningInspection
from .sessions import Sessions
from .signin_view import SignInView
from .status_line import StatusLine

if TYPE_CHECKING:
    from ..agentserver.transport import Transport
    from ..inspection_status import InspectionStatus
    from ..inspections import Inspection

__all__ = ["REACH_RETRY_SECONDS", "App"]

# How long the error screen waits before it checks the agent server again by itself: soon at first (a
# server still starting, a phone just out of a dead spot), then seldom, so a server that is down for good
# is not polled from every phone at once.
REACH_RETRY_SECONDS = (2, 4, 8, 15, 30)


class App:
    def __init__(self, config: AppConfig, transport: Transport) -> None:
        """Everything the page holds, built and wired; nothing drawn yet (`start` attaches to the page). The
        client speaks through `transport` (the browser's fetch, which `main` picks)."""
        self.config = config
        self.client = AgentServerClient(config.server_url, transport=transport, stall_seconds=config.stall_seconds)
        self.signin = SignIn(self.client, storage.LocalStorageStore())
        self.signin.restore()  # a token this device kept for this server goes with every request from now on
        self.status_line = StatusLine()  # where the open inspection is, after each run (session.status_report)
        self.running = RunningInspection(self.status_line)
        drafts = storage.IndexedDbStore()  # localStorage keeps small settings only; old drafts move over on read
        self.tools = DeviceTools(drafts, config.server_url, on_asking=self.status_line.asking)  # built at first use
        # The assistant (graph) to talk to is configuration, like the server URL; so are the stuck-run limits.
        self.sessions = Sessions(self.client, self.tools.get, drafts, assistant_id=config.assistant_id,
                                 owner=self.signin.owner, stuck_policy=config.stuck_policy, on_status=self._on_status)
        self.device = device_id()  # put into each new thread's metadata: the list finds this device's threads by it
        self.listed = InspectionsView(self.client, self.device, self.open_inspection, self.sessions.thread_id)

    async def reach_server(self) -> None:
        """Block on the shell's error screen until the agent server answers: checked again by itself after
        REACH_RETRY_SECONDS (the last repeated), or at once when Retry is pressed."""
        attempt = 0
        while True:
            try:
                await self.client.ok()
                dom.hide_error()
                return
            except AgentServerError as exc:
                wait = REACH_RETRY_SECONDS[min(attempt, len(REACH_RETRY_SECONDS) - 1)]
                attempt += 1
                dom.show_error(f"Cannot reach the agent server at {self.config.server_url}. Trying again every "
                               f"{wait} s, or now with Retry.", f"{type(exc).__name__}: {exc}")
                await tasks.wait_for_retry(wait)

    async def start(self) -> None:
        """Attach to the first screen, then the list and the inspection that was open (or the one a press
        before the app was up starts)."""
        if dom.element("sw-start") is None:  # a page without the build's pre-rendered first screen
            dom.set_html("app", first_screen())
        # Otherwise the app attaches to the first screen as it is: what was typed meanwhile, and the focus, stay.
        self.tools.attach()  # the developer details name the server, and the tools once built
        dom.show_app()
        self._say_problems()
        self._attach()
        pressed_early = dom.take_first_press()  # after our listener is on: each press is taken once, by one of them
        dom.mark_ready()
        if pressed_early:  # the press starts the inspection in the form; the last one is not reopened over it
            tasks.spawn(self.start_inspection())
            await self.listed.refresh()
            return
        await self.listed.refresh()
        await self.rejoin()
        await self.listed.refresh()  # the reopened inspection's status may have changed meanwhile

    def _say_problems(self) -> None:
        """A bad stall or stuck-run limit (?stall=, ?stuck=, config.json) is said (status line, console), not used."""
        for problem in self.config.problems:
            tasks.log_error(f"sitewalk: {problem}")
        if self.config.problems:
            dom.show_status(" ".join(self.config.problems), error=True)

    def _attach(self) -> None:
        """The page's controls, each speaking to this App's parts."""
        self.listed.attach()
        Composer(self.sessions.current).attach()
        AuditView(self.client, self.sessions.thread_id, owner=self.signin.owner).attach()
        signin_view = SignInView(self.signin, on_signed_in=self._signed_in, on_signed_out=_signed_out)
        signin_view.attach()
        self.client.on_unauthorized = signin_view.required  # any 401, from any part of the app, asks for a sign-in
        tasks.on("sw-start", "click", lambda _event: self.start_inspection())
        tasks.on("sw-save-draft", "click", lambda _event: self.save_draft())

    def _on_status(self, inspection_id: str, status: InspectionStatus) -> None:
        """After a run: the status line, and the list in the same words."""
        self.status_line.show(inspection_id, status)
        tasks.spawn(self.listed.refresh())

    async def _signed_in(self) -> None:
        """Carry on where the sign-in was asked for: the list, and the inspection that was open (unless one runs),
        in the same session, so the messages its outbox kept for the sign-in are sent now."""
        await self.listed.refresh()
        if self.running.session is None:
            await self.rejoin()

    async def start_inspection(self) -> None:
        """Start: a new thread for the inspection in the form, its first run."""
        inspection_id = _inspection_id()
        if inspection_id is None:
            return
        self.sessions.view().reset()
        session = self.sessions.new(on_thread=lambda thread_id: keep_thread(thread_id, inspection_id))
        note = str(dom.element("sw-note").value).strip()
        await self.running.run(inspection_id, session,
                               session.start(inspection_id, note=note, metadata={"device_id": self.device}))
        await self.listed.refresh()

    async def open_inspection(self, entry: Inspection) -> None:
        """Open an inspection of the list: its view restored from the server's state, then carried on."""
        if self.running.session is not None:
            dom.show_status("An inspection is running: cancel it or wait for it before opening another.", error=True)
            return
        dom.element("sw-inspection-id").value = entry.inspection_id
        keep_thread(entry.thread_id, entry.inspection_id)
        self.sessions.view().reset()
        session = self.sessions.new()
        await self.running.run(entry.inspection_id, session, session.reopen(entry.thread_id))
        await self.listed.refresh()

    async def rejoin(self) -> bool:
        """After a reload: reopen the last inspection whatever its state (its view restored from the
        server's state; a run going is followed, a headless tool waiting is answered, each call once)."""
        kept = kept_thread()
        if kept is None:
            return False
        thread_id, inspection_id = kept.thread_id, kept.inspection_id
        try:
            state = await self.client.threads.get_state(thread_id)
        except (NotFound, Forbidden):  # gone (another server, deleted), or another inspector's: say so, once
            forget_thread()
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
        how = "rejoined" if waiting else "reopened"
        dom.show_status(f"Inspection {inspection_id}: {how} thread {thread_id}")
        session = self.sessions.for_thread(thread_id)  # after a sign-in: the session on screen, with its outbox
        await self.running.run(inspection_id, session, session.reopen(thread_id))
        return True

    async def save_draft(self) -> None:
        """Save draft: the form's draft kept on this device, by the same tool the agent calls."""
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
        call_id = f"local-save-{uuid.uuid4().hex[:12]}"
        envelope = await self.tools.get().run({"id": call_id, "name": "save_local_draft", "args": draft})
        if envelope["ok"]:
            dom.show_status(f"Draft for {inspection_id} saved on this device.")
        else:
            error = envelope["error"]
            dom.show_status(f"Draft not saved: {error['code']}: {error['message']}", error=True)


def _inspection_id() -> str | None:
    """The inspection id in the form, or None (with a word to the inspector) when it is empty."""
    inspection_id = str(dom.element("sw-inspection-id").value).strip()
    if not inspection_id:
        dom.show_status("Enter an inspection id first.", error=True)
        return None
    return inspection_id


def _signed_out() -> None:
    forget_thread()  # the open inspection was the signed-out inspector's
    storage.LocalStorageStore().remove(SEEN_KEY)  # and so was the list kept for the next visit's first paint
    dom.reload()
