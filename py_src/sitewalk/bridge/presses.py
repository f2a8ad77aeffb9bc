"""Delegated clicks on a container, and the presses on its controls that the browser would lose.

A press that the page moves or draws anew under the pointer before its release gets no click on the
control (`base.presses`): the timeline is drawn again when a run ends and moves down while the transcript
above it streams, so on a slow phone such a press did nothing; the review and question cards, the screen's
buttons, the inspections list, the stuck-run panel and the sign-in panel move and are drawn anew the same
way. `on_press` keeps the container's one delegated click listener and adds a pointer listener: a press on
one of its controls (`selector`) released where it went down but lost by the browser is handed to the same
callback, as a click on the control pressed (its node, maybe detached: the callback reads what it is from
its attributes). The click the browser may still send for that press elsewhere (a touch's click goes to
what is under the finger then) is dropped, so a press acts once. A keyboard's click (detail 0) is never
dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import js

from ..base.presses import press_is_lost
from . import dom
from .tasks import handler, spawn
from .values import JsProxy

__all__ = ["on_press"]


@dataclass(frozen=True)
class PressedControl:
    """What the callback gets for a press the browser lost: the control pressed, as a click's target."""

    target: JsProxy


@dataclass
class _Press:
    control: JsProxy
    pointer_id: int
    x: float
    y: float


class _Presses:
    def __init__(self, container: JsProxy, selector: str, callback: Callable[[JsProxy], object]) -> None:
        self.container = container
        self.selector = selector
        self.callback = callback
        self.press: _Press | None = None
        self.taken = False  # a press was handed over at its release: its click, if one comes, is not another

    def act(self, event: JsProxy) -> None:
        result = self.callback(event)
        if asyncio.iscoroutine(result):
            spawn(result)  # a failure is reported, not lost (bridge.tasks)

    def down(self, event: JsProxy) -> None:
        self.taken = False
        self.press = None
        control = dom.closest(event.target, self.selector)
        if control is not None and bool(self.container.contains(control)) and bool(event.isPrimary) \
                and int(event.button) == 0:
            self.press = _Press(control, int(event.pointerId), float(event.clientX), float(event.clientY))

    def up(self, event: JsProxy) -> None:
        press, self.press = self.press, None
        if press is None or int(event.pointerId) != press.pointer_id:
            return
        under = dom.element_at(float(event.clientX), float(event.clientY))  # not event.target: a touch's
        released_on = dom.closest(under, self.selector) if under is not None else None  # is its pressed node
        on_it = released_on is not None and bool(press.control.contains(released_on))
        moved = (float(event.clientX) - press.x, float(event.clientY) - press.y)
        if press_is_lost(bool(press.control.isConnected), on_it, moved):
            self.taken = True
            self.act(PressedControl(press.control))

    def cancel(self, _event: object) -> None:
        self.press = None  # the browser took the pointer (a scroll): no press

    def click(self, event: JsProxy) -> None:
        if self.taken and int(event.detail) > 0:  # the lost press's own click, landed elsewhere
            self.taken = False
            return
        self.act(event)


def on_press(container: str | JsProxy, selector: str, callback: Callable[[JsProxy], object]) -> None:
    """`callback(event)` for each click in the container (its id, or its element), and for each press on a
    `selector` control in it that the browser would lose (see the module's docstring). The release is
    listened for on the whole document: a moved control may be released outside the container."""
    if isinstance(container, str):
        container = dom.element(container)
    presses = _Presses(container, selector, callback)
    container.addEventListener("pointerdown", handler(presses.down))
    container.addEventListener("click", handler(presses.click))
    js.document.addEventListener("pointerup", handler(presses.up), True)
    js.document.addEventListener("pointercancel", handler(presses.cancel), True)
