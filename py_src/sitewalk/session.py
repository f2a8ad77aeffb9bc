"""One inspection's conversation with the agent: stream runs, answer headless tools, track UI and history.

Pure orchestration: it talks to the agent server through `AgentServerClient` and to the screen
through a `View`, so the same code runs in the browser and under CPython tests.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Protocol

from .contracts.spec import RENDER_UI_TOOL
from .agentserver.client import AgentServerClient, pending_interrupts
from .headless.registry import HeadlessToolRegistry, headless_tool_call
from .streaming import CallState, RunAssembler, ToolCallProgress
from .timeline import Checkpoint, build_timeline
from .ui.render import render_spec
from .ui.validate import Issue, validate_spec

ASSISTANT_ID = "inspection"
STREAM_MODES = ("values", "updates", "messages-tuple")
MAX_RESUMES = 20  # a run that keeps interrupting is a bug in the graph; stop rather than loop


class View(Protocol):
    def status(self, text: str) -> None: ...
    def agent_text(self, message_id: str, text: str) -> None: ...
    def tool_call(self, call_id: str, name: str, state: str, detail: str = "") -> None: ...
    def screen(self, html: str, spec: dict[str, Any]) -> None: ...
    def screen_issues(self, issues: list[Issue]) -> None: ...
    def timeline(self, checkpoints: list[Checkpoint]) -> None: ...


class InspectionSession:
    def __init__(self, client: AgentServerClient, registry: HeadlessToolRegistry, view: View,
                 assistant_id: str = ASSISTANT_ID):
        self.client = client
        self.registry = registry
        self.view = view
        self.assistant_id = assistant_id
        self.thread_id: Optional[str] = None
        self.spec_identity: Optional[dict[str, Any]] = None
        self.outcomes: dict[str, dict[str, Any]] = {}  # tool_call_id -> envelope sent
        self.settled: set[str] = set()  # tool calls whose end the view has shown

    async def start(self, inspection_id: str, note: str = "") -> None:
        thread = await self.client.threads.create(metadata={"inspection_id": inspection_id})
        self.thread_id = thread["thread_id"]
        self.view.status(f"Inspection {inspection_id}: thread {self.thread_id}")
        text = f"Start inspection {inspection_id}" + (f"\n{note}" if note else "")
        message = {"role": "user", "content": text}
        await self.run(input={"messages": [message], "inspection_id": inspection_id,
                              "client_tools": self.registry.manifest()})

    async def run(self, **run_kwargs: Any) -> None:
        """Stream one run and keep resuming it while it waits on headless tools this client answers."""
        assert self.thread_id, "start() first"
        for _ in range(MAX_RESUMES):
            await self._stream(**run_kwargs)
            answers = await self._answer_pending()
            if not answers:
                break
            run_kwargs = {"command": {"resume": answers}}
        await self.refresh_timeline()

    async def _stream(self, **run_kwargs: Any) -> None:
        assembler = RunAssembler()
        async for part in self.client.runs.stream(self.thread_id, self.assistant_id,
                                                  stream_mode=STREAM_MODES, **run_kwargs):
            kind = part.event.split("|", 1)[0]
            if kind == "messages":
                for change in assembler.feed(part.data):
                    if isinstance(change, ToolCallProgress):
                        self._show_call(change)
                    else:
                        self.view.agent_text(change.id, change.text)
            elif kind == "values" and isinstance(part.data, dict):
                self._settle_calls(part.data.get("messages") or [])
                self._show_spec(part.data.get("ui_spec"))
        for call in assembler.finish_message():
            self._show_call(call)

    def _show_call(self, call: ToolCallProgress) -> None:
        self.view.tool_call(call.id or "?", call.name or "?", call.state, call.args_text)
        if call.name == RENDER_UI_TOOL and call.state == CallState.args_ready and call.args is not None:
            # Show the screen as soon as its arguments are complete; the server validates it again.
            identity = {"message_id": call.key[1], "tool_call_id": call.id, "revision": 0}
            self._show_spec({**call.args, "identity": identity})

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

    async def _answer_pending(self) -> dict[str, Any]:
        state = await self.client.threads.get_state(self.thread_id)
        answers: dict[str, Any] = {}
        for interrupt in pending_interrupts(state):
            call = headless_tool_call(interrupt.get("value"))
            if call is None:
                continue  # not a headless tool (e.g. human review): another part of the app answers it
            call_id = str(call.get("id"))
            self.view.tool_call(call_id, call["name"], CallState.running)
            answer = await self.registry.answer(interrupt["value"])
            envelope = answer[call_id]
            self.outcomes[call_id] = envelope
            state_name = CallState.succeeded if envelope["ok"] else CallState.failed
            detail = "" if envelope["ok"] else f"{envelope['error']['code']}: {envelope['error']['message']}"
            self.view.tool_call(call_id, call["name"], state_name, detail)
            self.settled.add(call_id)
            answers[interrupt["id"]] = answer
        return answers

    def _show_spec(self, ui_spec: Any) -> None:
        if not isinstance(ui_spec, dict):
            return
        identity = ui_spec.get("identity") or {}
        if self.spec_identity and _same_spec(identity, self.spec_identity):
            return  # the same spec again (e.g. in a later values event): nothing to redraw
        issues = validate_spec({k: v for k, v in ui_spec.items() if k != "identity"})
        if issues:
            self.view.screen_issues(issues)  # the last good screen stays
            return
        self.spec_identity = identity
        self.view.screen(render_spec(ui_spec), ui_spec)

    async def refresh_timeline(self) -> list[Checkpoint]:
        history: list[dict[str, Any]] = []
        async for page in self.client.threads.iter_history(self.thread_id, page_size=50):
            history.extend(page)
        checkpoints = build_timeline(history)
        self.view.timeline(checkpoints)
        return checkpoints


def _same_spec(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # One render_ui call is one screen: the server's stored copy of a call already shown is not new.
    return bool(a.get("tool_call_id")) and a.get("tool_call_id") == b.get("tool_call_id")


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
