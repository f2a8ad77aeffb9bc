"""Python callables as JS callbacks, and asyncio work started from the browser's event loop.

An event handler may be async: it runs as a task, and a failure is logged to the console and shown
in the status line (`report_failure`) instead of vanishing. Proxies of listeners live as long as the
page; one-shot proxies are destroyed once they have run.
"""

from __future__ import annotations

import asyncio
import contextlib
import traceback
from collections.abc import Callable, Coroutine
from typing import TypeVar

import js
from pyodide.ffi import create_once_callable, create_proxy

from . import dom
from .values import JsProxy

__all__ = [
    "destroy_later",
    "handler",
    "keep",
    "log_error",
    "next_frame",
    "on",
    "report_failure",
    "spawn",
    "wait_for_online",
    "wait_for_retry",
]

_kept_proxies: list[object] = []  # listener proxies live as long as the page

T = TypeVar("T")


def keep(proxy: T) -> T:
    """Keep a proxy alive for the page's lifetime (the browser may call it at any time)."""
    _kept_proxies.append(proxy)
    return proxy


def destroy_later(proxies: list[object]) -> None:
    """Destroy these proxies once the current JS call (maybe one of them) has returned."""
    asyncio.get_event_loop().call_soon(_destroy_all, list(proxies))


def _destroy_all(proxies: list[JsProxy]) -> None:
    for proxy in proxies:
        proxy.destroy()


def log_error(text: str) -> None:
    js.console.error(text)


def report_failure(task: asyncio.Future[T]) -> None:
    """A done-callback: a task that failed is logged to the console and shown in the status line."""
    if not task.cancelled() and task.exception() is not None:
        exc = task.exception()
        assert exc is not None
        log_error("sitewalk: " + "".join(traceback.format_exception(exc)))
        dom.show_status(f"Error: {type(exc).__name__}: {exc}", error=True)


def spawn(work: Coroutine[object, object, T]) -> asyncio.Future[T]:
    """Run a coroutine as a task whose failure is reported, not lost."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(report_failure)
    return task


def handler(callback: Callable[[JsProxy], object]) -> object:
    """A kept JS function for `addEventListener`; an async callback runs as a reported task."""

    def listener(event: object) -> None:
        result = callback(event)
        if asyncio.iscoroutine(result):
            spawn(result)

    return keep(create_proxy(listener))


def on(element_id: str, event: str, callback: Callable[[JsProxy], object]) -> None:
    """Listen for an event on the element with this id (see `handler`)."""
    dom.element(element_id).addEventListener(event, handler(callback))


def next_frame(callback: Callable[[float], None]) -> None:
    """Call once at the next animation frame (with the frame's timestamp)."""
    js.requestAnimationFrame(create_once_callable(callback))


async def wait_for_retry(seconds: float) -> None:
    """Until the user presses the boot shell's Retry button, or `seconds` have passed: a phone that found no
    server at boot (no signal yet, a server still starting) tries again by itself instead of waiting for a tap."""
    pressed: asyncio.Future[None] = asyncio.get_event_loop().create_future()

    def resolve(*_: object) -> None:
        if not pressed.done():
            pressed.set_result(None)

    listener = create_proxy(resolve)
    unsubscribe = dom.shell().onRetry(listener)  # the shell keeps a copy of its own
    listener.destroy()
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(pressed, seconds)
    finally:
        unsubscribe()  # one listener at a time, however often the server is tried


async def wait_for_online(attempt: int) -> None:
    """Back off before delivery attempt `attempt` + 1, and wait while the browser says it is offline.

    Polls `navigator.onLine` (no event proxies to keep); Playwright's offline mode and a phone's
    flight mode both flip it. Online but unreachable backs off 0.5, 1, 2 ... up to 15 s.
    """
    while not bool(js.navigator.onLine):
        await asyncio.sleep(0.25)
    await asyncio.sleep(min(0.25 * 2 ** attempt, 15.0))
