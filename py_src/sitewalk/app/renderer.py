"""The keyed DOM renderer of the generative-UI screen (browser side of `sitewalk.ui.keyed`).

One node per element id, kept between specs. `show(spec)` only records the spec to show; at the
next animation frame the renderer compares it with the spec on screen (`plan_update`), renders
the dirty elements' shallow templates, fills their slots with the children's existing nodes and
puts each top dirty node in place of its old one; the first screen is parsed whole, in one HTML
write (`dom.set_html`, the page's one HTML sink). Several `show` calls within a frame make one DOM
pass. Clicks are delegated: one listener on the screen container, `on_action(element_id, action,
subject)` for a `[data-sw-action]` button, also for a press the browser loses when the screen moves or
is drawn anew under the pointer (`bridge.presses.on_press`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from typing import Any

from ..bridge import dom, or_none, tasks
from ..bridge.presses import on_press
from ..ui.keyed import SLOT_TAG, plan_update, shallow_html
from ..ui.render import render_spec

__all__ = ["KeyedRenderer"]


class KeyedRenderer:
    def __init__(self, container_id: str = "sw-screen",
                 on_action: Callable[[str, str, str], Any] | None = None,
                 on_new_screen: Callable[[], Any] | None = None) -> None:
        self.container_id = container_id
        self.on_action = on_action
        self.on_new_screen = on_new_screen  # called after a screen is drawn where there was none
        self.shown: dict[str, Any] | None = None  # the spec the DOM shows
        self._reach: tuple[list[str], dict[str, list[str]]] | None = None  # its walk (see plan_update)
        self.passes = 0  # DOM passes done (one per animation frame at most)
        self._nodes: dict[str, Any] = {}
        self._pending: dict[str, Any] | None = None
        self._frame_requested = False
        self._attached: Any = None  # the container whose clicks are delegated here
        self._template = dom.create("template")

    def attach(self) -> None:
        """Delegate clicks on the container (call again after the container was recreated)."""
        container = dom.element(self.container_id)
        if self._attached is None or not container.isSameNode(self._attached):
            self._attached = container
            on_press(container, "[data-sw-action]", self._on_click)

    def reset(self) -> None:
        self.shown = None
        self._reach = None
        self._pending = None
        self._nodes.clear()
        dom.set_html(self.container_id, "")

    def show(self, spec: Mapping[str, object]) -> None:
        """Show a validated (or progressive-filtered) spec at the next animation frame."""
        self._pending = {"root": spec["root"], "elements": spec["elements"]}
        if not self._frame_requested:
            self._frame_requested = True
            tasks.next_frame(self._frame)

    def flush(self) -> None:
        """Apply a pending spec now (for benchmarks and tests)."""
        if self._pending is not None:
            spec, self._pending = self._pending, None
            self._apply(spec)

    def _first_render(self, spec: dict[str, Any]) -> None:
        """The whole screen in one HTML write, then its nodes indexed by id (an element shown in
        several places is keyed by its first node, the others are copies, as in `_apply`)."""
        container = dom.element(self.container_id)
        dom.set_html(container, render_spec(spec))
        self._nodes.clear()
        for node in container.querySelectorAll("[data-sw-id]"):
            self._nodes.setdefault(str(node.dataset.swId), node)

    def _frame(self, _timestamp: object = None) -> None:
        self._frame_requested = False
        try:
            self.flush()
        except Exception as exc:  # never leave an exception inside the browser's frame callback
            tasks.log_error("sitewalk renderer: " + "".join(traceback.format_exception(exc)))

    def _apply(self, spec: dict[str, Any]) -> None:
        plan = plan_update(self.shown, spec, self._reach)
        if plan.empty:
            return
        self.passes += 1
        if self.shown is None:  # nothing on screen, nothing to keep: one parse of the whole tree
            self._first_render(spec)
            if self.on_new_screen is not None:
                self.on_new_screen()
        else:
            focused = dom.active_element()
            old_nodes = {key: self._nodes.get(key) for key in plan.top}
            self._render_dirty(plan.dirty, spec["elements"])
            self._put_in_place(plan.top, old_nodes, spec["root"])
            for key in plan.removed:
                self._nodes.pop(key, None)
            if focused is not None and focused.isConnected and not dom.is_active(focused):
                focused.focus()  # a kept node that moved with a re-rendered parent lost focus: give it back
        self.shown, self._reach = spec, plan.reach

    def _render_dirty(self, dirty: list[str], elements: dict[str, Any]) -> None:
        """New nodes for the dirty elements, children first: their nodes exist when a parent fills its
        slots. An element in several places keeps its node once and gets copies elsewhere."""
        used: set[str] = set()
        for key in dirty:
            dom.set_html(self._template, shallow_html(key, elements[key]))
            node = self._template.content.firstElementChild
            for slot in list(node.querySelectorAll(f"{SLOT_TAG}[data-sw-slot]")):
                child = str(slot.dataset.swSlot)
                child_node = self._nodes.get(child)
                if child_node is None:
                    slot.remove()
                    continue
                slot.replaceWith(child_node.cloneNode(True) if child in used else child_node)
                used.add(child)
            self._nodes[key] = node

    def _put_in_place(self, top: list[str], old_nodes: dict[str, Any], root: str) -> None:
        """Each top dirty node replaces its old node; the root node becomes the container's only child."""
        for key in top:
            old = old_nodes.get(key)
            if key != root and old is not None and dom.parent(old) is not None:
                old.replaceWith(self._nodes[key])
        container = dom.element(self.container_id)
        root_node = self._nodes[root]
        parent = dom.parent(root_node)
        if parent is None or not container.isSameNode(parent) or container.childNodes.length != 1:
            container.replaceChildren(root_node)  # JS objects: compare nodes (isSameNode), not proxies

    def _on_click(self, event: Any) -> Any:
        """A click on a `[data-sw-action]` button calls `on_action`; an awaitable it returns runs as a
        task whose failure is reported (`tasks.handler`)."""
        target = or_none(event.target)
        button = dom.closest(target, "[data-sw-action]") if target is not None else None
        if button is None or self.on_action is None:
            return None
        subject = dom.attribute(button, "data-sw-subject") or ""
        return self.on_action(str(button.dataset.swId), str(button.dataset.swAction), subject)
