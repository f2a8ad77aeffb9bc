"""Sessions and their parts over the fake agent server (fake_agent_server.py), built one way for every test.

    fake = thread_server(paused_run(), finished_run()).on("POST", HISTORY, (200, []))
    session, view = session_on(fake, wait_for_network=no_wait)
    assert resumes(fake) == [...]

`thread_server` scripts only the thread's creation and its run streams: a test adds the routes it
needs after them (the first matching route answers, so these two come first).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from fake_agent_server import BASE_URL, RUNS, THREAD_ID, FakeTransport, RecordingView, counted_registry

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.base.frames import FRAME_S
from sitewalk.screen_feed import ScreenFeed
from sitewalk.session import InspectionSession
from sitewalk.session.calls import CallBoard
from sitewalk.session.cancel import Cancellation
from sitewalk.session.parts import DeviceHooks, ScreenHooks, ThreadParts
from sitewalk.session.stream import RunStream
from sitewalk.session.thread import Thread, WaitForNetwork

NEW_THREAD = (200, {"thread_id": THREAD_ID, "status": "idle", "metadata": {}})


async def no_wait(attempt: int) -> None:
    """A `wait_for_network` that does not wait."""


def client_on(fake: FakeTransport) -> AgentServerClient:
    return AgentServerClient(BASE_URL, transport=fake)


def thread_server(*runs: Any) -> FakeTransport:
    """A server that creates thread t1 and answers its run streams with `runs`, in order."""
    return FakeTransport().on("POST", "/threads", NEW_THREAD).on("POST", f"{RUNS}/stream", *runs)


def session_on(fake: FakeTransport, registry: Any = None, view: RecordingView | None = None,
               **hooks: Any) -> tuple[InspectionSession, RecordingView]:
    """A session on `fake` (read_local_draft counted unless a registry is given) and the view it draws on."""
    view = view or RecordingView()
    registry = registry if registry is not None else counted_registry()[0]
    device, shown = split_hooks(**hooks)
    return InspectionSession(client_on(fake), registry, view, device_hooks=device, screen_hooks=shown), view


def parts_on(fake: FakeTransport, view: RecordingView, **hooks: Any) -> ThreadParts:
    """The parts of a session on thread t1 (no start: the thread exists), drawing on `view`."""
    return ThreadParts.build(client_on(fake), Thread(THREAD_ID), counted_registry()[0], view, ScreenFeed(view),
                             Cancellation(), *split_hooks(**hooks))


def split_hooks(**hooks: Any) -> tuple[DeviceHooks, ScreenHooks]:
    """Each hook named, into whichever of `DeviceHooks` and `ScreenHooks` has it (an unknown name: TypeError)."""
    device_names = {field.name for field in fields(DeviceHooks)}
    return (DeviceHooks(**{k: v for k, v in hooks.items() if k in device_names}),
            ScreenHooks(**{k: v for k, v in hooks.items() if k not in device_names}))


def stream_on(fake: FakeTransport, view: RecordingView, wait: WaitForNetwork = no_wait,
              frame_s: float = FRAME_S) -> RunStream:
    """The run stream of thread t1 on `fake`, drawing on `view` (what came shown once a frame; 0: each event)."""
    return RunStream(client_on(fake), Thread(THREAD_ID), view, ScreenFeed(view), CallBoard(view), wait,
                     frame_s=frame_s)


def resumes(fake: FakeTransport) -> list[Any]:
    """What each run sent to `fake` resumed (runs from an input or a checkpoint resume nothing)."""
    return [r.json["command"]["resume"] for r in fake.sent("POST", f"{RUNS}/stream") if "command" in r.json]
