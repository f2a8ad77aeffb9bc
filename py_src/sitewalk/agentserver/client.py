"""A small async client for the LangGraph Agent Server API, for the browser and for CPython.

Names follow langgraph-sdk where they fit (`client.threads.get_state`, `client.runs.stream`),
so code reads the same against `langgraph dev` and LangGraph Platform. Wire values are the JSON
dicts the server sends, typed by `schema` (TypedDicts: nothing is copied or converted).

    client = AgentServerClient("http://127.0.0.1:2024")
    thread = await client.threads.create()
    async for part in client.runs.stream(thread["thread_id"], "inspection", input={...}):
        ...  # StreamPart(event="updates", data={...}, id=None)
    state = await client.threads.get_state(thread["thread_id"])
    for pending in pending_interrupts(state):
        ...  # {"id": interrupt_id, "value": {"type": "tool", "tool_call": {...}}}
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import quote

from ..base.server_errors import HTTPStatusError, NotFound, StreamError, Unauthorized, error_for_status
from .schema import (
    Assistant,
    CancelAction,
    Checkpoint,
    Command,
    Config,
    DisconnectMode,
    Interrupt,
    Item,
    MultitaskStrategy,
    Run,
    RunStatus,
    SearchItemsResponse,
    StreamMode,
    Thread,
    ThreadState,
    ThreadStatus,
    ThreadUpdateStateResponse,
)
from .sse import ServerSentEvent, SSEDecoder
from .stall import QUIET_FACTOR, STALL_SECONDS, until_stalled
from .transport import HttpxTransport, Transport

__all__ = ["AgentServerClient", "StreamPart", "pending_interrupts", "state_at_checkpoint_request"]

DEFAULT_STREAM_MODE: tuple[StreamMode, ...] = ("values", "updates", "messages-tuple")


@dataclass(frozen=True)
class StreamPart:
    event: str
    """`metadata`, `values`, `updates`, `messages`, ..., with `|<namespace>` for subgraph events."""
    data: object
    """The event's JSON payload, parsed."""
    id: str | None = None
    """The SSE id (only with resumable streams; not unique on the in-memory server)."""


def _p(segment: str) -> str:
    return quote(str(segment), safe="")


def _drop_none(body: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in body.items() if v is not None}


class _Http:
    """Every request of the client goes through here: the headers (the bearer token among them) are
    read at each request, so a sign-in reaches every part of the app at once.

    A 401 is told to `on_unauthorized` (the app's sign-in form, which forgets the refused token) only
    when the request carried the token the client holds now: one sent before a sign-in (with no token,
    or the old one) and answered after it refused nothing the inspector has now. Its caller still gets
    the Unauthorized."""

    def __init__(self, base_url: str, transport: Transport, headers: dict[str, str] | None,
                 stall_seconds: float = STALL_SECONDS) -> None:
        self.base_url = base_url.rstrip("/")
        self.transport = transport
        self.headers = dict(headers or {})
        self.stall_seconds = stall_seconds
        self.on_unauthorized: Callable[[Unauthorized], None] | None = None

    def _refused(self, error: HTTPStatusError, sent_token: str | None) -> HTTPStatusError:
        held_now = self.headers.get("Authorization") == sent_token
        if isinstance(error, Unauthorized) and held_now and self.on_unauthorized is not None:
            self.on_unauthorized(error)
        return error

    async def call(self, method: str, path: str, json: object = None) -> object:
        url = self.base_url + path
        sent_token = self.headers.get("Authorization")
        status, body = await self.transport.request(method, url, json=json, headers=self.headers)
        if status >= 400:
            raise self._refused(error_for_status(status, body, method=method, url=url), sent_token)
        return body

    async def sse(
        self, method: str, path: str, json: object = None, headers: dict[str, str] | None = None
    ) -> AsyncIterator[StreamPart]:
        url = self.base_url + path
        decoder = SSEDecoder()
        sent_token = self.headers.get("Authorization")
        chunks = self.transport.stream(method, url, json=json, headers={**self.headers, **(headers or {})})

        def limit() -> float:  # shorter once the server has shown that it heartbeats
            return self.stall_seconds if decoder.comments else self.stall_seconds * QUIET_FACTOR

        try:
            async for text in until_stalled(chunks, limit, url):
                for event in decoder.feed(text):
                    yield _part(event)
        except Unauthorized as exc:  # the transport raises the status before the first chunk
            raise self._refused(exc, sent_token) from None
        for event in decoder.close():
            yield _part(event)


def state_at_checkpoint_request(thread_id: str, checkpoint_id: str) -> tuple[str, dict[str, Any]]:
    """The request for the state at one of the graph's checkpoints: `POST /threads/{id}/state/checkpoint`
    with the checkpoint's whole config, its namespace ("": the graph's own) included (the official SDK's
    `get_state(thread_id, checkpoint={...})`).

    Why not `GET /threads/{id}/state/{checkpoint_id}`: langgraph dev (langgraph-api 0.16, langgraph 1.2)
    answers it with 500 for a checkpoint whose metadata has `parents`, as every graph checkpoint of a run
    from a subgraph's checkpoint has (the site walk's "ask again" and "change answer": the run's config
    carries the subgraph's `checkpoint_map`). The GET builds a config without `checkpoint_ns`, the in-memory
    checkpointer hands that config back, and langgraph's `patch_checkpoint_map` reads its `checkpoint_ns`
    (KeyError). Aegra answers both forms alike. The GET may come back once langgraph dev answers it for
    the checkpoint tests/unit/test_state_after_ask_again_live.py makes (the SDK's `get_state(checkpoint_id=)`).
    """
    return (f"/threads/{_p(thread_id)}/state/checkpoint",
            {"checkpoint": {"checkpoint_id": checkpoint_id, "checkpoint_ns": ""}})


def _part(event: ServerSentEvent) -> StreamPart:
    try:
        data = json.loads(event.data) if event.data else None
    except ValueError:
        data = event.data
    if event.event == "error":
        raise StreamError(data)
    return StreamPart(event.event, data, event.id)


class ThreadsClient:
    def __init__(self, http: _Http) -> None:
        self._http = http

    async def create(self, metadata: Mapping[str, object] | None = None, thread_id: str | None = None) -> Thread:
        """POST /threads. Returns the thread ({thread_id, status, metadata, ...})."""
        body = _drop_none({"metadata": metadata or {}, "thread_id": thread_id})
        return cast(Thread, await self._http.call("POST", "/threads", body))

    async def get(self, thread_id: str) -> Thread:
        return cast(Thread, await self._http.call("GET", f"/threads/{_p(thread_id)}"))

    async def search(self, metadata: Mapping[str, object] | None = None, status: ThreadStatus | None = None,
                     limit: int = 10, offset: int = 0, sort_by: str | None = "updated_at",
                     sort_order: str | None = "desc") -> list[Thread]:
        """POST /threads/search: the threads whose metadata contains `metadata`, one page (newest first)."""
        body = _drop_none({"metadata": metadata, "status": status, "limit": limit, "offset": offset,
                           "sort_by": sort_by, "sort_order": sort_order})
        return cast(list[Thread], await self._http.call("POST", "/threads/search", body))

    async def get_state(self, thread_id: str, checkpoint_id: str | None = None) -> ThreadState:
        """The thread's state ({values, next, tasks, interrupts, checkpoint, parent_checkpoint, ...}), now or
        at one of the graph's checkpoints (read as `state_at_checkpoint_request` says)."""
        if checkpoint_id:
            path, body = state_at_checkpoint_request(thread_id, checkpoint_id)
            return cast(ThreadState, await self._http.call("POST", path, body))
        return cast(ThreadState, await self._http.call("GET", f"/threads/{_p(thread_id)}/state"))

    async def get_history(
        self, thread_id: str, limit: int = 10, before: str | None = None, checkpoint_ns: str = ""
    ) -> list[ThreadState]:
        """One page of checkpoints, newest first; `before` is a checkpoint id (exclusive).

        `checkpoint_ns` names a subgraph's own history (one compiled with `checkpointer=True`), e.g.
        `node` (without the task id); "" is the graph's own."""
        body: dict[str, object] = {"limit": limit}
        if before:
            # The flat {"before": id} form answers 500; the server wants a config.
            body["before"] = {"configurable": {"checkpoint_id": before}}
        if checkpoint_ns:
            body["checkpoint"] = {"checkpoint_ns": checkpoint_ns}
        return cast(list[ThreadState], await self._http.call("POST", f"/threads/{_p(thread_id)}/history", body))

    async def iter_history(self, thread_id: str, page_size: int = 10) -> AsyncIterator[list[ThreadState]]:
        """Every checkpoint of the thread, newest first, one page (list) at a time."""
        before: str | None = None
        seen: set[str] = set()
        while True:
            page = await self.get_history(thread_id, limit=page_size, before=before)
            page = [s for s in page if s["checkpoint"]["checkpoint_id"] not in seen]
            if not page:
                return
            seen.update(s["checkpoint"]["checkpoint_id"] for s in page)
            yield page
            if len(page) < page_size:
                return
            before = page[-1]["checkpoint"]["checkpoint_id"]

    async def update_state(
        self,
        thread_id: str,
        values: object,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
        checkpoint: Mapping[str, object] | None = None,
    ) -> ThreadUpdateStateResponse:
        """POST /threads/{id}/state. Returns {"checkpoint": {thread_id, checkpoint_ns, checkpoint_id, ...}}.

        `checkpoint` (a whole checkpoint object, with `checkpoint_ns` and `checkpoint_map`) writes into a
        subgraph's own history; `checkpoint_id` alone names one of the graph's own checkpoints."""
        body: dict[str, object] = {"values": values}
        if as_node is not None:
            body["as_node"] = as_node
        if checkpoint is not None:
            body["checkpoint"] = dict(checkpoint)
        elif checkpoint_id is not None:
            body["checkpoint"] = {"checkpoint_id": checkpoint_id}
        return cast(ThreadUpdateStateResponse, await self._http.call("POST", f"/threads/{_p(thread_id)}/state", body))

    def stream_events(
        self,
        thread_id: str,
        channels: Sequence[str] = ("messages", "tools", "input", "lifecycle"),
        *,
        since: int | None = None,
        namespaces: Sequence[Sequence[str]] | None = None,
        depth: int | None = None,
    ) -> AsyncIterator[StreamPart]:
        """POST /threads/{id}/stream/events: the newer event protocol, for the thread (every run on it).

        Each part's `event` is the protocol method (`messages`, `tools`, `input.requested`,
        `lifecycle`, ...) and its `data` the event `{event_id, seq, method, params}`. To reconnect, pass
        the last `seq` taken as `since`: the server replays what came after it (and may repeat an
        event: take events once by `seq`, never by their text). The stream does not end
        with a run; close it when done. Runs start with `command(thread_id, "run.start", {...})`.
        """
        body = _drop_none({"channels": list(channels), "since": since, "depth": depth,
                           "namespaces": [list(n) for n in namespaces] if namespaces is not None else None})
        return self._http.sse("POST", f"/threads/{_p(thread_id)}/stream/events", body)

    async def command(self, thread_id: str, method: str, params: Mapping[str, object], command_id: int = 1) -> object:
        """POST /threads/{id}/commands: one protocol command (`run.start`, `input.respond`, ...).

        Returns the server's answer `{type: "success", id, result}`; an answer of type `error` raises
        StreamError with it (the server answers some refusals with HTTP 200).
        """
        body = {"id": command_id, "method": method, "params": params}
        answer = await self._http.call("POST", f"/threads/{_p(thread_id)}/commands", body)
        if isinstance(answer, dict) and answer.get("type") == "error":
            raise StreamError(answer)
        return answer


class RunsClient:
    def __init__(self, http: _Http) -> None:
        self._http = http

    def stream(
        self,
        thread_id: str,
        assistant_id: str,
        *,
        input: object = None,
        command: Command | None = None,
        stream_mode: Sequence[StreamMode] | StreamMode = DEFAULT_STREAM_MODE,
        checkpoint_id: str | None = None,
        checkpoint: Mapping[str, object] | None = None,
        stream_subgraphs: bool = False,
        metadata: Mapping[str, object] | None = None,
        multitask_strategy: MultitaskStrategy | None = None,
        stream_resumable: bool = False,
        on_disconnect: DisconnectMode | None = None,
        config: Config | None = None,
    ) -> AsyncIterator[StreamPart]:
        """POST /threads/{id}/runs/stream: the run's events as they happen.

        Heartbeat comments are skipped; `event: error` raises StreamError. With `input=None`,
        `command=None` and a `checkpoint_id` the run continues from that checkpoint (a fork or
        a replay). A whole `checkpoint` object runs from a subgraph's own checkpoint (its
        `checkpoint_ns` and `checkpoint_map` say where the graph and the subgraph resume).
        `stream_resumable=True` gives every event an id and keeps the run going when the
        client disconnects, so `join_stream(..., last_event_id=...)` can pick it up again.
        """
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        body: dict[str, object] = {
            "assistant_id": assistant_id,
            "input": input,
            "stream_mode": modes,
            "stream_subgraphs": stream_subgraphs,
        }
        if command is not None:
            body["command"] = command
        if checkpoint is not None:
            body["checkpoint"] = dict(checkpoint)
        elif checkpoint_id is not None:
            body["checkpoint"] = {"checkpoint_id": checkpoint_id}
        if metadata is not None:
            body["metadata"] = metadata
        if multitask_strategy is not None:
            body["multitask_strategy"] = multitask_strategy
        if stream_resumable:
            body["stream_resumable"] = True
        if on_disconnect is not None:
            body["on_disconnect"] = on_disconnect
        if config is not None:
            body["config"] = config
        return self._http.sse("POST", f"/threads/{_p(thread_id)}/runs/stream", body)

    def join_stream(self, thread_id: str, run_id: str, last_event_id: str | None = None) -> AsyncIterator[StreamPart]:
        """Rejoin a (resumable) run's stream, from after `last_event_id` when given."""
        headers = {"Last-Event-ID": last_event_id} if last_event_id else None
        return self._http.sse("GET", f"/threads/{_p(thread_id)}/runs/{_p(run_id)}/stream", headers=headers)

    async def get(self, thread_id: str, run_id: str) -> Run:
        return cast(Run, await self._http.call("GET", f"/threads/{_p(thread_id)}/runs/{_p(run_id)}"))

    async def wait(self, thread_id: str | None, assistant_id: str, *, input: object = None) -> object:
        """POST /threads/{id}/runs/wait, or /runs/wait (stateless) without a thread: the run's final values."""
        path = f"/threads/{_p(thread_id)}/runs/wait" if thread_id else "/runs/wait"
        return await self._http.call("POST", path, {"assistant_id": assistant_id, "input": input})

    async def list(self, thread_id: str, status: RunStatus | None = None, limit: int = 10) -> list[Run]:
        """GET /threads/{id}/runs, newest first; `status` e.g. "running" or "pending"."""
        query = f"?limit={int(limit)}" + (f"&status={_p(status)}" if status else "")
        return cast(list[Run], await self._http.call("GET", f"/threads/{_p(thread_id)}/runs{query}"))

    async def cancel(self, thread_id: str, run_id: str, wait: bool = False, action: CancelAction = "interrupt"
                     ) -> object:
        """POST /threads/{id}/runs/{run_id}/cancel (`action`: interrupt keeps the checkpoints, rollback drops them).

        `wait` goes as 1 or 0: Aegra reads an integer (`wait=false` is answered 422), langgraph-api both."""
        query = f"?wait={1 if wait else 0}&action={_p(action)}"
        return await self._http.call("POST", f"/threads/{_p(thread_id)}/runs/{_p(run_id)}/cancel{query}")


class AssistantsClient:
    def __init__(self, http: _Http) -> None:
        self._http = http

    async def search(
        self, graph_id: str | None = None, metadata: Mapping[str, object] | None = None, limit: int = 10,
        offset: int = 0,
    ) -> list[Assistant]:
        body = _drop_none({"graph_id": graph_id, "metadata": metadata, "limit": limit, "offset": offset})
        return cast(list[Assistant], await self._http.call("POST", "/assistants/search", body))

    async def get_schemas(self, assistant_id: str) -> dict[str, object]:
        return cast(dict[str, object], await self._http.call("GET", f"/assistants/{_p(assistant_id)}/schemas"))


class StoreClient:
    """The Agent Server's key-value store (`/store/items`): read what the agent recorded, e.g. the audit trail."""

    def __init__(self, http: _Http) -> None:
        self._http = http

    async def search_items(self, namespace_prefix: Sequence[str], limit: int = 100, offset: int = 0
                           ) -> list[Item]:
        """POST /store/items/search: items {namespace, key, value, created_at, updated_at} under a prefix."""
        body = {"namespace_prefix": list(namespace_prefix), "limit": limit, "offset": offset}
        found = cast(SearchItemsResponse | None, await self._http.call("POST", "/store/items/search", body))
        return list(found.get("items") or []) if found else []

    async def get_item(self, namespace: Sequence[str], key: str) -> dict[str, object] | None:
        """GET /store/items: one item {namespace, key, value, ...}, or None when there is none (the in-memory
        server answers null, Aegra 404). Namespace labels never contain ".", so the dotted form is exact."""
        query = f"?namespace={_p('.'.join(namespace))}&key={_p(key)}"
        try:
            item = await self._http.call("GET", f"/store/items{query}")
        except NotFound:
            return None
        return dict(item) if isinstance(item, Mapping) else None

    async def list_items(self, namespace: Sequence[str], page_size: int = 100) -> list[Item]:
        """Every item stored exactly under `namespace` (a prefix search also returns deeper ones), page by page."""
        items: list[Item] = []
        offset = 0
        while True:
            page = await self.search_items(namespace, limit=page_size, offset=offset)
            items.extend(i for i in page if list(i.get("namespace") or []) == list(namespace))
            offset += len(page)
            if len(page) < page_size:
                return items


class AgentServerClient:
    """Entry point: `.threads`, `.runs`, `.assistants`, plus the helpers Sitewalk uses most."""

    def __init__(
        self, base_url: str, transport: Transport | None = None, headers: dict[str, str] | None = None,
        *, stall_seconds: float = STALL_SECONDS,
    ) -> None:
        """`transport`: how requests travel; httpx when none is given (CPython). The browser app
        passes `sitewalk.bridge.fetch.BrowserTransport()`: this package does not import the bridge.
        `stall_seconds`: a stream that has heartbeated and then stays silent this long is
        given up as a dropped connection (`stall.StreamStalled`, a ServerUnreachable); one that
        never heartbeated (Aegra) after `stall.QUIET_FACTOR` times as long."""
        self._http = _Http(base_url, transport or HttpxTransport(), headers, stall_seconds)
        self.threads = ThreadsClient(self._http)
        self.runs = RunsClient(self._http)
        self.assistants = AssistantsClient(self._http)
        self.store = StoreClient(self._http)

    @property
    def base_url(self) -> str:
        return self._http.base_url

    def set_token(self, token: str | None) -> None:
        """Send `Authorization: Bearer <token>` on every request from now on (None: send none)."""
        if token:
            self._http.headers["Authorization"] = f"Bearer {token}"
        else:
            self._http.headers.pop("Authorization", None)

    @property
    def on_unauthorized(self) -> Callable[[Unauthorized], None] | None:
        """Called with the error whenever the server answers 401 (before the caller gets it raised)."""
        return self._http.on_unauthorized

    @on_unauthorized.setter
    def on_unauthorized(self, callback: Callable[[Unauthorized], None] | None) -> None:
        self._http.on_unauthorized = callback

    async def ok(self) -> bool:
        """GET /info: True when the server answers (raises ServerUnreachable when it does not).

        /info, not /ok: langgraph dev, LangGraph Platform and Aegra all serve it; Aegra has no /ok,
        and a 404 there would be a console error in the browser.
        """
        await self._http.call("GET", "/info")
        return True

    async def send_device_spans(self, batch: Mapping[str, object]) -> Any:
        """POST a batch of the device's spans (`sitewalk.tracing`) to the server's device-span route."""
        from sitewalk_shared.contracts.device_trace import ROUTE  # only with tracing on: not in the boot closure

        return await self._http.call("POST", ROUTE, json=batch)

    def resume(
        self, thread_id: str, assistant_id: str, answers: Mapping[str, object], **kwargs: Any
    ) -> AsyncIterator[StreamPart]:
        """Answer pending interrupts by id (`{interrupt_id: value}`) and stream the continued run.

        For a headless tool the value is `{tool_call_id: envelope}`, as the official SDK sends it.
        """
        return self.runs.stream(thread_id, assistant_id, command={"resume": answers}, **kwargs)

    async def fork(
        self, thread_id: str, checkpoint_id: str, values: object = None, as_node: str | None = None
    ) -> Checkpoint:
        """Branch from a checkpoint: write `values` there (as `as_node`), return the new checkpoint.

        Then `runs.stream(thread_id, assistant_id, input=None, checkpoint_id=new["checkpoint_id"])`
        runs the branch. Nothing in the old history is removed.
        """
        result = await self.threads.update_state(thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id)
        return result["checkpoint"]

    async def aclose(self) -> None:
        await self._http.transport.aclose()

    async def __aenter__(self) -> AgentServerClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def pending_interrupts(state: ThreadState | Mapping[str, object]) -> list[Interrupt]:
    """The interrupts a thread state is waiting on, as [{"id", "value"}], deduplicated by id.

    Reads the top-level `interrupts` and every `tasks[].interrupts` (recursing into a task's
    subgraph `state` when the server includes it). Older servers name the id `interrupt_id`; an
    interrupt without any id cannot be answered by id (how this client answers) and is left out.
    """
    out: list[Interrupt] = []
    seen: set[str] = set()

    def add(items: object) -> None:
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            iid = item.get("id") or item.get("interrupt_id")
            if not iid or iid in seen:
                continue
            seen.add(str(iid))
            out.append({"id": str(iid), "value": item.get("value")})

    def walk(st: object) -> None:
        if not isinstance(st, dict):
            return
        add(st.get("interrupts"))
        tasks = st.get("tasks")
        for task in tasks if isinstance(tasks, list) else []:
            if isinstance(task, dict):
                add(task.get("interrupts"))
                walk(task.get("state"))

    walk(state)
    return out
