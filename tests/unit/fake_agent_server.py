"""An in-memory `Transport` for unit tests of the session's parts: scripted replies, recorded requests.

    fake = FakeTransport()
    fake.on("GET", "/threads/t1/state", (200, state))            # a JSON reply
    fake.on("POST", "/threads/t1/runs/stream", sse(...))         # an SSE body (text, or chunks)
    fake.on("POST", "/threads/t1/runs/stream", OFFLINE, sse(...))  # first offline, then a stream
    client = AgentServerClient("http://agent.test", transport=fake)

Each route answers its replies in order and repeats the last one. A reply that is an exception is
raised (ServerUnreachable: as the browser's fetch fails offline); inside a list of stream chunks it
is raised after the chunks before it (a connection cut mid-stream). A `Silence()` among the chunks
keeps the stream open and silent until the test calls its `end()` (a run no worker carries).
`fake.sent(...)` lists the requests that matched, with their JSON bodies. A run's record
(`GET /threads/T/runs/R`) that no route scripts answers `status: success`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sitewalk.base.server_errors import ServerUnreachable

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BASE_URL = "http://agent.test"
OFFLINE = ServerUnreachable(BASE_URL, "TypeError: Failed to fetch (test)")
_RUN_RECORD = re.compile(r"/threads/[^/]+/runs/[^/]+")
MAX_REQUESTS = 200  # a part that keeps sending fails its test instead of hanging it


def sse(*events: tuple[str, Any] | tuple[str, Any, str]) -> str:
    """SSE text as the server writes it (CRLF) from (event, data[, id]) tuples."""
    out = []
    for event in events:
        name, data = event[0], event[1]
        out.append(f"event: {name}\r\ndata: {json.dumps(data)}\r\n" + (f"id: {event[2]}\r\n" if len(event) > 2 else "")
                   + "\r\n")
    return "".join(out)


def fixture(name: str) -> str:
    """A stream recorded from a real `langgraph dev` (tests/unit/fixtures/record.py)."""
    return (FIXTURES / name).read_bytes().decode("utf-8")


def state_at(thread_id: str, checkpoint_id: str) -> str:
    """The route of the state at one checkpoint (`fake.on("POST", state_at(t, c), reply)`): the client asks
    `POST /threads/T/state/checkpoint` with the checkpoint in the body, routed here by its id."""
    return f"/threads/{thread_id}/state/checkpoint/{checkpoint_id}"


def _routed_path(method: str, path: str, body: Any) -> str:
    if method == "POST" and path.endswith("/state/checkpoint") and isinstance(body, dict):
        return f"{path}/{(body.get('checkpoint') or {}).get('checkpoint_id', '')}"
    return path


class Silence:
    """A stream chunk that says nothing until `end()` (then the chunks after it follow)."""

    def __init__(self) -> None:
        self._ended = asyncio.Event()

    def end(self) -> None:
        self._ended.set()

    async def wait(self) -> None:
        await self._ended.wait()


@dataclass
class Request:
    method: str
    path: str  # without the query
    query: str
    json: Any
    headers: dict[str, str]


@dataclass
class _Route:
    method: str
    path: str
    replies: list[Any]
    served: int = 0

    def next(self) -> Any:
        reply = self.replies[min(self.served, len(self.replies) - 1)]
        self.served += 1
        return reply


@dataclass
class FakeTransport:
    routes: list[_Route] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def on(self, method: str, path: str, *replies: Any) -> FakeTransport:
        self.routes.append(_Route(method, path, list(replies)))
        return self

    def sent(self, method: str, path: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def _reply(self, method: str, url: str, body: Any, headers: dict[str, str] | None) -> Any:
        parts = urlsplit(url)
        if len(self.requests) >= MAX_REQUESTS:
            raise AssertionError(f"more than {MAX_REQUESTS} requests: a loop that does not end")
        copy = json.loads(json.dumps(body))  # as it went over the wire, not a live reference
        self.requests.append(Request(method, parts.path, parts.query, copy, dict(headers or {})))
        path = _routed_path(method, parts.path, copy)
        for route in self.routes:
            if route.method == method and route.path == path:
                return route.next()
        if method == "GET" and _RUN_RECORD.fullmatch(parts.path):
            # A run's record read after its stream ended: the run ended with it, unless a route
            # above says otherwise (a stream that ends while its run goes on is rejoined).
            return 200, {"run_id": parts.path.rsplit("/", 1)[1], "status": "success"}
        raise AssertionError(f"no scripted reply for {method} {parts.path}")

    async def request(self, method: str, url: str, json: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        reply = self._reply(method, url, json, headers)
        await asyncio.sleep(0)  # a network round trip: other tasks run meanwhile
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def stream(self, method: str, url: str, json: Any = None,
                     headers: dict[str, str] | None = None) -> AsyncIterator[str]:
        reply = self._reply(method, url, json, headers)
        if isinstance(reply, Exception):
            raise reply
        for chunk in [reply] if isinstance(reply, str) else reply:
            await asyncio.sleep(0)
            if isinstance(chunk, Silence):
                await chunk.wait()
                continue
            if isinstance(chunk, Exception):
                raise chunk
            yield chunk

    async def aclose(self) -> None:
        pass


class RecordingView:
    """A `session.View` that keeps what it was told."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []
        self.texts: dict[str, str] = {}
        self.screens: list[dict[str, Any]] = []
        self.issues: list[Any] = []
        self.fallbacks: list[list[str]] = []
        self.checkpoints: list[Any] = []

    def status(self, text: str) -> None:
        self.events.append(("status", text))

    def agent_text(self, message_id: str, text: str) -> None:
        self.texts[message_id] = text

    def user_text(self, message_id: str, text: str) -> None:
        self.events.append(("user_text", text))

    def tool_call(self, call_id: str, name: str, state: str, detail: str = "", answer: object = None) -> None:
        self.events.append(("tool_call", name, state, detail))

    def tool_args(self, call_id: str, text: str, replace: bool = False) -> None:
        self.events.append(("tool_args", call_id, text, replace))

    def screen(self, spec: dict[str, Any]) -> None:
        self.screens.append(spec)

    def screen_issues(self, issues: list[Any], fallback: list[str]) -> None:
        self.issues.append(issues)
        self.fallbacks.append(fallback)

    def action_result(self, element_id: str, status: str) -> None:
        self.events.append(("action_result", element_id, status))

    def clear_live(self) -> None:
        self.events.append(("clear_live",))
        self.texts.clear()

    def timeline(self, checkpoints: list[Any]) -> None:
        self.checkpoints = checkpoints

    def states(self, tool: str) -> list[str]:
        return [e[2] for e in self.events if e[0] == "tool_call" and e[1] == tool]

    def statuses(self) -> list[str]:
        return [e[1] for e in self.events if e[0] == "status"]


class PageView(RecordingView):
    """Keeps the transcript as the page does (one line per message id, in the order first drawn) and a log
    of what was drawn when, so a test can tell the redraw came before the run's events."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, tuple[str, str]] = {}
        self.log: list[tuple[str, str]] = []
        self.on_screen: dict[str, Any] | None = None

    def user_text(self, message_id: str, text: str) -> None:
        self.lines[message_id] = ("you", text)
        self.log.append(("you", message_id))

    def agent_text(self, message_id: str, text: str) -> None:
        super().agent_text(message_id, text)
        self.lines[message_id] = ("agent", text.strip())
        self.log.append(("agent", message_id))

    def screen(self, spec: dict[str, Any]) -> None:
        super().screen(spec)
        self.on_screen = spec

    def clear_live(self) -> None:
        super().clear_live()
        self.lines.clear()
        self.on_screen = None
        self.log.append(("clear", ""))

    def transcript(self) -> list[tuple[str, str]]:
        return list(self.lines.values())


# --- a thread waiting on one headless tool, as the server shows it ------------------------------

THREAD_ID = "t1"
RUNS = f"/threads/{THREAD_ID}/runs"
STATE = f"/threads/{THREAD_ID}/state"
HISTORY = f"/threads/{THREAD_ID}/history"
CALL = {"id": "call_1", "name": "read_local_draft", "args": {"inspection_id": "inspection-42"}}
INTERRUPT = {"id": "int-1", "value": {"type": "tool", "tool_call": CALL}}
DRAFT = {"site": "Pier 4", "risk": "medium"}


def paused_run(run_id: str = "r1", interrupts: tuple[dict[str, Any], ...] = (INTERRUPT,)) -> str:
    """A run that asks for the headless tool and pauses (ids as a resumable stream has them)."""
    return sse(("metadata", {"run_id": run_id}, "1-0"),
               ("values", {"messages": [{"type": "human", "id": "h1", "content": "Start inspection inspection-42"}]},
                "2-0"),
               ("updates", {"__interrupt__": list(interrupts)}, "3-0"))


def finished_run(run_id: str = "r2", words: str = "The draft says Pier 4.") -> str:
    """The resumed run: the tool's message in the state, then the agent's words, streamed."""
    tool_message = {"type": "tool", "name": "read_local_draft", "tool_call_id": CALL["id"], "status": "success",
                    "content": "{}"}
    chunk = {"type": "AIMessageChunk", "id": "m2", "content": words, "tool_call_chunks": [], "chunk_position": "last"}
    return sse(("metadata", {"run_id": run_id}, "4-0"), ("values", {"messages": [tool_message]}, "5-0"),
               ("messages", [chunk, {"langgraph_node": "model"}], "6-0"),
               ("values", {"messages": [tool_message, {**chunk, "type": "ai"}]}, "7-0"))


def waiting_state(*interrupts: dict[str, Any], values: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"values": values or {"messages": []}, "next": ["tools"] if interrupts else [],
            "tasks": [{"id": "task", "name": "tools", "interrupts": list(interrupts)}] if interrupts else [],
            "interrupts": list(interrupts), "checkpoint": {"checkpoint_ns": "", "checkpoint_id": "c9"},
            "metadata": {}, "created_at": None, "parent_checkpoint": None}


def counted_registry(draft: dict[str, Any] | None = None) -> tuple[Any, list[Any]]:
    """A registry with read_local_draft over an in-memory store, and the list of each run's args."""
    from memory_storage import MemoryStore

    from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft

    store = {draft_key("inspection-42"): json.dumps(DRAFT if draft is None else draft)}
    implementation = read_local_draft(MemoryStore(store))
    registry = HeadlessToolRegistry()
    runs: list[Any] = []

    async def counted(args: Any) -> Any:
        runs.append(args)
        return await implementation(args)

    registry.register("read_local_draft", counted)
    return registry, runs
