"""A press the page moves or draws anew under the pointer still reaches its control, once (issue 29, the lost tap).

`base.presses` decides; `bridge.presses` listens. The bridge is run here under CPython on stand-in nodes and
events (the e2e test tests/e2e/test_timeline_taps_under_load.py presses the real timeline in Chromium).
"""

from __future__ import annotations

import importlib
import sys
import types
from types import SimpleNamespace

import pytest

from sitewalk.base.presses import SLOP_PX, press_is_lost


def test_a_press_released_on_its_control_is_the_browsers_click():
    assert not press_is_lost(True, True, (0.0, 0.0))
    assert not press_is_lost(True, True, (40.0, 0.0))


def test_a_press_whose_control_was_drawn_anew_or_moved_away_is_lost_by_the_browser():
    assert press_is_lost(False, False, (0.0, 0.0))  # its node replaced: Chromium sends no click
    assert press_is_lost(False, True, (0.0, 0.0))
    assert press_is_lost(True, False, (3.0, 4.0))  # moved from under the pointer: the click goes to an ancestor
    assert press_is_lost(True, False, (SLOP_PX, 0.0))


def test_a_pointer_that_slid_off_or_scrolled_is_no_press():
    assert not press_is_lost(True, False, (SLOP_PX + 0.5, 0.0))
    assert not press_is_lost(False, False, (8.0, 8.0))


class Node:
    """Enough of a DOM element: `closest` finds the nearest control, `contains` walks the parents."""

    def __init__(self, name: str, parent: Node | None = None, control: bool = False) -> None:
        self.name, self.parent, self.control, self.isConnected = name, parent, control, True

    def closest(self, _selector: str) -> Node | None:
        node: Node | None = self
        while node is not None and not node.control:
            node = node.parent
        return node

    def contains(self, other: Node) -> bool:
        node: Node | None = other
        while node is not None and node is not self:
            node = node.parent
        return node is self


def _event(target: Node, x: float = 10.0, y: float = 10.0, detail: int = 1, pointer: int = 1) -> SimpleNamespace:
    return SimpleNamespace(target=target, isPrimary=True, button=0, pointerId=pointer, clientX=x, clientY=y,
                           detail=detail)


@pytest.fixture
def presses(monkeypatch):
    """The bridge's `_Presses` on a panel with two buttons, and what its callback was given."""
    released: list[Node] = []
    js = types.ModuleType("js")
    ffi = types.ModuleType("pyodide.ffi")
    ffi.create_proxy = ffi.create_once_callable = lambda f: f
    ffi.to_js = lambda value, **_: value
    ffi.JsException = type("JsException", (Exception,), {})
    for name, module in {"js": js, "pyodide": types.ModuleType("pyodide"), "pyodide.ffi": ffi}.items():
        monkeypatch.setitem(sys.modules, name, module)
    for name in ("sitewalk.bridge.presses", "sitewalk.bridge.tasks", "sitewalk.bridge.dom"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module("sitewalk.bridge.presses")
    # what is under the pointer at a release: the release's target here (a touch's target is its pressed node)
    under: list[Node] = []  # set: what is under the pointer instead (a touch, whose target stays its pressed node)
    monkeypatch.setattr(module.dom, "element_at", lambda x, y: under[-1] if under else released[-1])
    panel = Node("panel")
    rows = Node("rows", panel)
    edit, replay = Node("edit", rows, control=True), Node("replay", rows, control=True)
    got: list[object] = []
    keeper = module._Presses(panel, "[data-sw-travel]", got.append)
    up = keeper.up

    def release(event: SimpleNamespace) -> None:
        released.append(event.target)
        up(event)

    keeper.up = release
    yield SimpleNamespace(keeper=keeper, panel=panel, rows=rows, under=under,
                          edit=edit, replay=replay, got=got, kept=module.PressedControl)
    monkeypatch.undo()
    for name in ("sitewalk.bridge.presses", "sitewalk.bridge.tasks", "sitewalk.bridge.dom"):
        sys.modules.pop(name, None)


def test_a_plain_press_acts_once_through_its_click(presses):
    p = presses
    p.keeper.down(_event(p.edit))
    p.keeper.up(_event(p.edit))
    assert p.got == []  # the browser's click follows
    click = _event(p.edit)
    p.keeper.click(click)
    assert p.got == [click]


def test_a_press_on_a_button_drawn_anew_acts_on_the_button_pressed(presses):
    p = presses
    p.keeper.down(_event(p.edit))
    p.edit.isConnected = False  # the list was drawn again: a new node stands where it was
    p.keeper.up(_event(Node("edit, drawn anew", p.rows, control=True)))
    assert p.got == [p.kept(p.edit)]
    keyboard = _event(p.replay, detail=0)
    p.keeper.click(keyboard)  # Chromium sent no click; Enter on a focused button is the inspector's own
    p.keeper.down(_event(p.replay))  # and the next press is a press of its own
    p.keeper.up(_event(p.replay))
    p.keeper.click(_event(p.replay))
    assert p.got[1:2] == [keyboard] and len(p.got) == 3 and p.got[2].target is p.replay


def test_a_press_on_a_moved_button_acts_once_though_its_click_lands_elsewhere(presses):
    p = presses
    p.keeper.down(_event(p.edit))
    p.keeper.up(_event(p.replay))  # the list moved down: another button is under the pointer now
    assert p.got == [p.kept(p.edit)]
    p.keeper.click(_event(p.replay))  # a touch's click goes to what is under the finger: not a second press
    assert p.got == [p.kept(p.edit)]
    keyboard = _event(p.replay, detail=0)
    p.keeper.click(keyboard)  # Enter on a focused button is the inspector's own
    assert p.got == [p.kept(p.edit), keyboard]


def test_a_press_slid_off_scrolled_or_of_another_pointer_is_no_press(presses):
    p = presses
    p.keeper.down(_event(p.edit))
    p.keeper.up(_event(p.rows, x=10.0 + SLOP_PX + 5))
    p.keeper.down(_event(p.edit))
    p.keeper.cancel(_event(p.edit))
    p.keeper.up(_event(p.rows))
    p.keeper.down(_event(p.edit))
    p.keeper.up(_event(p.rows, pointer=2))
    p.keeper.down(_event(p.rows))  # not on a button
    p.keeper.up(_event(p.rows))
    assert p.got == []


def test_a_touch_on_a_moved_button_is_told_by_what_is_under_the_finger_not_by_its_target(presses):
    p = presses
    p.keeper.down(_event(p.edit))
    p.under.append(p.replay)  # the list moved; a touch's pointerup still targets the node it went down on
    p.keeper.up(_event(p.edit))
    assert p.got == [p.kept(p.edit)]
    p.keeper.click(_event(p.replay))  # the tap's click, on what is under the finger now: not a second press
    assert p.got == [p.kept(p.edit)]


def test_the_review_cards_region_answers_a_press_on_a_card_drawn_anew(presses, monkeypatch):
    """The card regions (review and question cards) listen through `on_press`: a press whose card was drawn
    anew under the pointer reaches the review view's handler, as the timeline's does."""
    p = presses
    listeners: dict[str, object] = {}
    p.panel.addEventListener = lambda kind, listener, *_: listeners.setdefault(kind, listener)
    module = sys.modules["sitewalk.bridge.presses"]
    monkeypatch.setattr(module.js, "document", SimpleNamespace(
        addEventListener=lambda kind, listener, *_: listeners.setdefault(kind, listener)), raising=False)
    before = set(sys.modules)
    monkeypatch.delitem(sys.modules, "sitewalk.app.regions", raising=False)
    try:
        _press_a_card_drawn_anew(p, listeners, importlib.import_module("sitewalk.app.regions"), monkeypatch)
    finally:  # what was imported here against the stand-in `js` goes with it
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)


def _press_a_card_drawn_anew(p, listeners, regions, monkeypatch):
    monkeypatch.setattr(regions.dom, "element", lambda _id: SimpleNamespace(parentNode=None, nextSibling=None))
    monkeypatch.setattr(regions.dom, "ensure_element", lambda *_args, **_kw: p.panel)
    region = regions.CardRegion("sw-reviews", "sw-reviews", p.got.append, "Reviews", "[data-review-action]")
    assert region.node() is p.panel and region.node() is p.panel  # its listeners attached once
    listeners["pointerdown"](_event(p.edit))
    p.edit.isConnected = False  # the cards were drawn again between press and release
    p.under.append(Node("approve, drawn anew", p.rows, control=True))
    listeners["pointerup"](_event(p.edit))
    assert p.got == [p.kept(p.edit)]
