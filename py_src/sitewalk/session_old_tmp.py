"""One inspection's conversation with the agent: stream runs, answer headless tools, track UI and history.

Pure orchestration: it talks to the agent server through `AgentServerClient` and to the screen
through a `View`, so the same code runs in the browser and under CPython tests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .agentserver.client import AgentServerClient, pending_interrupts
from .agentserver.errors import AgentServerError, ServerUnreachable
from .agentserver.rejoin import stream_with_rejoin
from .contracts.envelope import ErrorCode, error_result
from .headless.delivery import AnswerBook, AuditLog, ContractMismatch, client_mismatch, mismatch_of, server_mismatches
from .headless.registry import HeadlessToolRegistry, headless_tool_call
from .screen_feed import ScreenFeed
from .spec.validate import Issue
from .streaming import CallState, MessageText, RunAssembler, ToolCallProgress
from .timeline import Checkpoint, build_timeline

ASSISTANT_ID = "inspection"
STREAM_MODES = ("values", "updates", "messages-tuple")
MAX_RESUMES = 20  # a run that keeps interrupting is a bug in the graph; stop rather than loop


class View(Protocol):
    def status(self, text: str) -> None: ...
    def agent_text(self, message_id: str, text: str) -> None: ...
    def tool_call(self, call_id: str, name: str, state: str, detail: str = "") -> None: ...
    def screen(self, spec: dict[str, Any]) -> None: ...
    def screen_issues(self, issues: list[Issue]) -> None: ...
    def timeline(self, checkpoints: list[Checkpoint]) -> None: ...


class InspectionSession:
    # Set by the app: where answers are kept before sending (exactly once across reloads), who is
    # told of a contract that differs from the agent's, and of the thread a start created.
    book: AnswerBook | None = None
    on_contract_mismatch: Callable[[ContractMismatch], None] | None = None
    on_thread: Callable[[str], None] | None = None
    audit: AuditLog | None = None  # what left the device, per delivered answer
    on_outbox: Callable[[int], None] | None = None  # answers waiting for the network (0: none)
    wait_for_network: Callable[[int], Awaitable[None]] | None = None  # attempt -> back online (or retry)

    def __init__(self, client: AgentServerClient, registry: HeadlessToolRegistry, view: View,
                 assistant_id: str = ASSISTANT_ID):
        self.client = client
        self.registry = registry
        self.view = view
        self.assistant_id = assistant_id
        self.thread_id: str | None = None
        self.screen = ScreenFeed(view)  # what the stream says of the screen and the transcript
        self._streamed: _StreamedState | None = None  # what the last run's stream said
        self._acting = False
        if hasattr(view, "on_action"):
            view.on_action = self.act  # ConfirmButton clicks (delegated by the view's renderer)
        self.outcomes: dict[str, dict[str, Any]] = {}  # tool_call_id -> envelope sent
        self.settled: set[str] = set()  # tool calls whose end the view has shown
        self.contract_mismatches: list[ContractMismatch] = []  # both directions, as found
        self._mismatches_shown: set[str] = set()
        self.cancelled = False  # the inspector cancelled this run (see cancel())
        self._tool_tasks: set[asyncio.Future[Any]] = set()

    async def start(self, inspection_id: str, note: str = "") -> None:
        thread = await self.client.threads.create(metadata={"inspection_id": inspection_id})
        self.thread_id = thread["thread_id"]
        if self.on_thread is not None:
            self.on_thread(self.thread_id)
        self.view.status(f"Inspection {inspection_id}: thread {self.thread_id}")
        text = f"Start inspection {inspection_id}" + (f"\n{note}" if note else "")
        message = {"role": "user", "content": text}
        await self.run(input={"messages": [message], "inspection_id": inspection_id,
                              "client_tools": self.registry.manifest()})

    async def run(self, **run_kwargs: Any) -> None:
        """Stream one run and keep resuming it while it waits on headless tools this client answers."""
        assert self.thread_id, "start() first"
        answers: dict[str, Any] = {}
        for _ in range(MAX_RESUMES):
            if answers:
                await self._deliver(answers)
            else:
                await self._stream(**run_kwargs)
            answers = {} if self.cancelled else await self._answer_pending(self._streamed_state())
            if not answers:
                break
        await self.refresh_timeline()

    async def _stream(self, run_id: str | None = None, **run_kwargs: Any) -> None:
        """Stream one run (a new one, or with `run_id` one already going) to the view.

        A dropped connection is rejoined where it broke, without showing an event twice.
        """
        assembler = RunAssembler()
        self._streamed = _StreamedState()
        async for part in stream_with_rejoin(self.client, self.thread_id, self.assistant_id, run_id=run_id,
                                             wait=self._wait_for_network, on_drop=self._connection_dropped,
                                             stream_mode=STREAM_MODES, **run_kwargs):
            kind = part.event.split("|", 1)[0]
            if kind == "messages":
                for change in assembler.feed(part.data):
                    self._show_change(change)
            elif kind == "values" and isinstance(part.data, dict):
                self._streamed.values = part.data
                self._settle_calls(part.data.get("messages") or [])
                self._show_spec(part.data.get("ui_spec"))
            elif kind == "updates" and isinstance(part.data, dict):
                self._streamed.interrupts.extend(part.data.get("__interrupt__") or [])
        self._streamed.whole = True
        for change in assembler.finish_message():
            self._show_change(change)

    def _streamed_state(self) -> dict[str, Any] | None:
        """The thread's state as the last stream ended, when that stream is the whole story.

        It saves reading the state before answering a headless tool. After a dropped connection
        the server's own state is read instead: a rejoin may miss an event.
        """
        streamed = self._streamed
        if streamed is None or not streamed.whole or streamed.dropped or streamed.values is None:
            return None
        return {"values": streamed.values, "interrupts": streamed.interrupts}

    def _connection_dropped(self, attempt: int) -> None:
        if self._streamed is not None:
            self._streamed.dropped = True
        self.view.status(f"Connection lost: rejoining the run (attempt {attempt})")

    @property
    def spec_identity(self) -> dict[str, Any] | None:
        """The server's identity of the screen shown (what a ConfirmButton's action names)."""
        return self.screen.spec_identity

    def _show_change(self, change: Any) -> None:
        if isinstance(change, ToolCallProgress):
            self.view.tool_call(change.id or "?", change.name or "?", change.state, change.args_text)
            self.screen.call(change)
        elif isinstance(change, MessageText):
            self.screen.text(change)

    def _show_spec(self, ui_spec: Any) -> None:
        self.screen.server_spec(ui_spec)

    def _settle_calls(self, messages: list[Any]) -> None:
        """A tool message in the state is the server's word on how a call ended."""
        for message in messages:
            if not isinstance(message, dict) or message.get("type") != "tool":
                continue
            call_id = str(message.get("tool_call_id") or "")
            if not call_id or call_id in self.settled:
                continue
            self.settled.add(call_id)
            failed = message.get("status") == "error"
            detail = _error_summary(message.get("content")) if failed else ""
            self.view.tool_call(call_id, str(message.get("name") or "?"),
                                CallState.failed if failed else CallState.succeeded, detail)

    async def _answer_pending(self, state: dict[str, Any] | None = None) -> dict[str, Any]:
        """Answers for the headless tools the thread waits on (in `state`, else the server's), each
        call run at most once.

        A call this device answered before (the same interrupt again, or a reload that finds the
        server still waiting) gets its recorded envelope again; a contract that differs from the
        agent's is answered with contract_mismatch without running the tool.
        """
        if state is None:
            state = await self.client.threads.get_state(self.thread_id)
        for mismatch in server_mismatches(state):
            self._contract_mismatch(mismatch)
        answers: dict[str, Any] = {}
        for interrupt in pending_interrupts(state):
            call = headless_tool_call(interrupt.get("value"))
            if call is None:
                continue  # not a headless tool (e.g. human review): another part of the app answers it
            call_id = str(call.get("id"))
            envelope = await self._recorded(call_id)
            if envelope is None:
                self.view.tool_call(call_id, call["name"], CallState.running)
                envelope = client_mismatch(interrupt["value"], self.registry.contracts,
                                           implemented=set(self.registry.names))
                if envelope is None:
                    envelope = await self._run_tool(interrupt["value"], call)
                if self.cancelled:  # not an answer: the run was cancelled while the tool ran
                    self.view.tool_call(call_id, call["name"], CallState.failed,
                                        f"{envelope['error']['code']}: {envelope['error']['message']}"
                                        if not envelope["ok"] else "cancelled")
                    return {}
                self.outcomes[call_id] = envelope
                if self.book is not None:  # kept on the device before it is sent
                    await self.book.record(self.thread_id, interrupt.get("id"), envelope)
            mismatch = mismatch_of(envelope)
            if mismatch is not None:
                self._contract_mismatch(mismatch)
            state_name = CallState.succeeded if envelope["ok"] else CallState.failed
            detail = "" if envelope["ok"] else f"{envelope['error']['code']}: {envelope['error']['message']}"
            self.view.tool_call(call_id, call["name"], state_name, detail)
            self.settled.add(call_id)
            answers[interrupt["id"]] = {call_id: envelope}
        return answers

    async def _run_tool(self, interrupt_value: Any, call: dict[str, Any]) -> dict[str, Any]:
        """Run one headless tool as its own task, so that cancel() can end it (its dialog closes)."""
        call_id = str(call.get("id"))
        task = asyncio.ensure_future(self.registry.answer(interrupt_value))
        self._tool_tasks.add(task)
        try:
            return (await task)[call_id]
        except asyncio.CancelledError:
            if not self.cancelled or not task.cancelled():
                raise  # the session itself is being cancelled
            return error_result(call["name"], call_id, ErrorCode.cancelled, "the inspector cancelled the run")
        finally:
            self._tool_tasks.discard(task)

    async def cancel(self) -> None:
        """The inspector cancelled the run: end the tool in progress (as cancelled, nothing is sent)
        and cancel a run still going on the server (POST /threads/{id}/runs/{run_id}/cancel)."""
        self.cancelled = True
        for task in list(self._tool_tasks):
            task.cancel()
        if not self.thread_id:
            return
        try:
            for run in await self.client.runs.list(self.thread_id, status="running"):
                await self.client.runs.cancel(self.thread_id, run["run_id"])
        except AgentServerError:
            pass  # nothing running, or the server is out of reach: the tool is cancelled either way

    async def _recorded(self, call_id: str) -> dict[str, Any] | None:
        """The envelope already answered for a call, in this page or (with a book) before a reload."""
        if call_id in self.outcomes:
            return self.outcomes[call_id]
        if self.book is None:
            return None
        record = await self.book.get(self.thread_id, call_id)
        if record is None:
            return None
        self.outcomes[call_id] = record["envelope"]
        return record["envelope"]

    def _contract_mismatch(self, mismatch: ContractMismatch) -> None:
        if mismatch.tool_call_id in self._mismatches_shown:
            return
        self._mismatches_shown.add(mismatch.tool_call_id)
        self.contract_mismatches.append(mismatch)
        if self.on_contract_mismatch is not None:
            self.on_contract_mismatch(mismatch)

    async def _deliver(self, answers: dict[str, Any]) -> None:
        """Resume the run with headless answers, once, whatever the network does.

        When the server cannot be reached the answers stay in the outbox (the book already holds
        them on the device), the view says so, and delivery waits for the network. The outcome of
        a request that went out without an answer is unknown, so before sending again the thread's
        state is read: only the interrupts it still waits on are sent; if it took them, the run it
        started is waited for instead.
        """
        resume = dict(answers)
        attempt = 0
        while resume:
            try:
                await self._stream(command={"resume": resume})
                break
            except ServerUnreachable:
                attempt += 1
                if self.on_outbox is not None:
                    self.on_outbox(len(resume))
                await self._wait_for_network(attempt)
                try:
                    state = await self.client.threads.get_state(self.thread_id)
                except ServerUnreachable:
                    continue
                still = {i.get("id") for i in pending_interrupts(state)}
                resume = {iid: answer for iid, answer in resume.items() if iid in still}
                if not resume:
                    await self._follow_latest_run()
        if attempt and self.on_outbox is not None:
            self.on_outbox(0)
        for answer in answers.values():
            for call_id, envelope in answer.items():
                if self.book is not None:
                    await self.book.delivered(self.thread_id, call_id)
                if self.audit is not None:  # what left the device
                    await self.audit.sent(self.thread_id, envelope)

    async def _wait_for_network(self, attempt: int) -> None:
        if self.wait_for_network is not None:
            await self.wait_for_network(attempt)
        else:
            await asyncio.sleep(min(0.25 * 2 ** attempt, 15.0))

    async def _follow_latest_run(self) -> None:
        """The server took an answer whose stream was lost before it began: show the run it
        resumed from its first event (runs are resumable, so their events are kept)."""
        runs = await self.client.runs.list(self.thread_id, limit=1)
        if runs:
            await self._stream(run_id=runs[0]["run_id"])
            self._streamed.dropped = True  # a joined stream may lack early events: read the state
        # the server may have dropped the run's events already: its state has the outcome anyway
        values = (await self.client.threads.get_state(self.thread_id)).get("values") or {}
        self._settle_calls(values.get("messages") or [])
        self._show_spec(values.get("ui_spec"))

    async def rejoin(self, thread_id: str) -> bool:
        """Carry on with a thread after a reload: answer what it still waits on (each call once).

        Returns whether the thread was waiting on this client.
        """
        self.thread_id = thread_id
        answers = await self._answer_pending()
        if answers:
            await self.run(command={"resume": answers})
        else:
            await self.refresh_timeline()
        return bool(answers)

    async def act(self, element_id: str, action: str, subject: str = "") -> dict[str, Any] | None:
        """A ConfirmButton was pressed: send the action as the resume of the run that awaits it.

        The browser never performs the business action: the agent authorizes the request against
        its state (this screen, this button, this action, an unused key) and acts. The key names
        the screen and the button, so pressing again (or a retry) is a replay the agent ignores.
        Without a network the request waits for it, then is sent once: if an earlier attempt did
        reach the agent (its reply was lost), the recorded outcome is shown, not a replay.
        """
        if not self.thread_id or self._acting:
            return None
        self._acting = True
        try:
            attempt = 0
            while True:
                try:
                    return await self._send_action(element_id, action, resent=attempt > 0)
                except ServerUnreachable:
                    attempt += 1
                    self.view.status(f"{action}: waiting for the network; it is sent once the network is back")
                    self._action_shown(element_id, "waiting")
                    await self._wait_for_network(attempt)
        finally:
            self._acting = False

    async def _send_action(self, element_id: str, action: str, resent: bool) -> dict[str, Any] | None:
        state = await self.client.threads.get_state(self.thread_id)
        values = state.get("values") or {}
        waiting = next((i for i in pending_interrupts(state) if isinstance(i.get("value"), dict)
                        and i["value"].get("type") == "ui_action_request"), None)
        identity = self.spec_identity or (waiting or {}).get("value", {}).get("identity") or {}
        key = f"ui:{identity.get('tool_call_id')}:{element_id}:{action}"
        taken = next((a for a in values.get("ui_actions") or [] if a.get("idempotency_key") == key), None)
        if resent and taken is not None:  # an attempt that seemed lost reached the agent
            await self._follow_latest_run()
            return self._action_done(element_id, action, {**taken, "status": "done"})
        if waiting is None:
            self.view.status(f"{action}: the agent is not waiting for a decision")
            return None
        request = {"type": "ui_action", "action": action, "identity": identity, "element_id": element_id,
                   "idempotency_key": key}
        await self.run(command={"resume": {waiting["id"]: request}})
        state = await self.client.threads.get_state(self.thread_id)
        return self._action_done(element_id, action, (state.get("values") or {}).get("ui_action_result") or {})

    def _action_done(self, element_id: str, action: str, result: dict[str, Any]) -> dict[str, Any]:
        status = str(result.get("status") or "unknown")
        detail = result.get("reason") or (result.get("result") or {}).get("work_order") or ""
        self.view.status(f"{action}: {status}" + (f" ({detail})" if detail else ""))
        self._action_shown(element_id, status)
        return result

    def _action_shown(self, element_id: str, status: str) -> None:
        shown = getattr(self.view, "action_result", None)
        if shown is not None:
            shown(element_id, status)

    async def refresh_timeline(self) -> list[Checkpoint]:
        history: list[dict[str, Any]] = []
        async for page in self.client.threads.iter_history(self.thread_id, page_size=50):
            history.extend(page)
        checkpoints = build_timeline(history)
        self.view.timeline(checkpoints)
        return checkpoints


class _StreamedState:
    """What one run's stream said of the thread: its last values and the interrupts it raised."""

    def __init__(self) -> None:
        self.values: dict[str, Any] | None = None
        self.interrupts: list[dict[str, Any]] = []
        self.whole = False  # the stream ran to its end
        self.dropped = False  # the connection dropped at least once (rejoined)


def _error_summary(content: Any) -> str:
    """'code: message' from a failed tool message's envelope, or its text."""
    try:
        body = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return str(content)[:200]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return f"{body['error'].get('code')}: {body['error'].get('message')}"
    if isinstance(body, dict) and body.get("issues"):
        return ", ".join(sorted({str(i.get("code")) for i in body["issues"] if isinstance(i, dict)}))
    return str(content)[:200]
