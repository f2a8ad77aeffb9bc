"""A card region of the page: a named `<section>` (a region by itself) placed after the tool calls, created once.

The question and review cards each live in one such region, with one delegated click listener for
every card's buttons (the cards inside are redrawn; the region and its listener stay), which keeps a
press the browser loses when a card moves or is drawn anew under the pointer (`bridge.presses.on_press`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..bridge import dom, tasks
from ..bridge.presses import on_press

__all__ = ["CardRegion", "present_card"]

AFTER = "sw-tool-calls"  # the regions follow the tool calls


class CardRegion:
    def __init__(self, element_id: str, css_class: str, on_click: Callable[[Any], Any], label: str,
                 controls: str, on_keydown: Callable[[Any], Any] | None = None) -> None:
        self.element_id = element_id
        self.css_class = css_class
        self.label = label
        self.on_click = on_click
        self.controls = controls  # the selector of the cards' buttons
        self.on_keydown = on_keydown
        self._attached = False

    def node(self) -> Any:
        """The region's element, inserted after the tool calls if missing; its listener attached once."""
        calls = dom.element(AFTER)
        # no explicit role="region" on a section (axe: aria-allowed-role): its name makes it one
        node = dom.ensure_element(self.element_id, "section", self.css_class, "", calls.parentNode,
                                  calls.nextSibling, label=self.label)
        if not self._attached:
            self._attached = True
            on_press(node, self.controls, self.on_click)
            if self.on_keydown is not None:
                node.addEventListener("keydown", tasks.handler(self.on_keydown))
        return node


def present_card(region: object, interrupt_id: str) -> None:
    """The card of this interrupt, just drawn in the region, into view and focused (`dom.bring_to_attention`)."""
    dom.bring_to_attention(dom.query(region, f"[data-interrupt-id='{dom.css_escape(interrupt_id)}']"))
