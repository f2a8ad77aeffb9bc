"""IntersectionObserver: call back when an element scrolls into view (the sentinel at a list's end).

The browser reports changes of visibility only, so a sentinel that stays in view after a page was
added (a short page) would never be reported again: `recheck` observes it anew, which makes the
browser report where it is now.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import js
from pyodide.ffi import create_proxy

from . import dom
from .tasks import keep, spawn
from .values import JsProxy

__all__ = ["Sentinel"]


class Sentinel:
    def __init__(self, element_id: str, on_visible: Callable[[], object], margin: str = "200px") -> None:
        """Watch the element with this id; `on_visible` (sync or async) runs each time it comes into view,
        `margin` early (the next page is asked for a little before the end is reached)."""
        self.element_id = element_id

        def seen(entries: JsProxy, _observer: object) -> None:
            if any(bool(entry.isIntersecting) for entry in entries):
                result = on_visible()
                if asyncio.iscoroutine(result):
                    spawn(result)

        options = js.Object.new()
        options.rootMargin = margin
        self._observer = js.IntersectionObserver.new(keep(create_proxy(seen)), options)
        self._observer.observe(dom.element(element_id))

    def recheck(self) -> None:
        """Report the sentinel again if it is (still) in view."""
        node = dom.element(self.element_id)
        if node is not None:
            self._observer.unobserve(node)
            self._observer.observe(node)
