"""The DOM side of `session.View`: each update touches only its own node.

The generative-UI screen goes through the keyed renderer (`renderer.KeyedRenderer`): only the
elements that changed are re-rendered, at most once per animation frame, and clicks on
ConfirmButtons reach `on_action` (given by the app) through one delegated listener.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sitewalk_shared.ui_spec.validate import Issue

from ..bridge import dom
from ..calls.words import ExpectedAnswer
from ..timeline import TimelineShown
from ..ui.templating import render_template
from .renderer import KeyedRenderer

SCREEN_PANEL = "sw-screen-panel"
AWAITED = "[data-interrupt-id], dialog"  # a question or review card, the device dialog


def _present_screen() -> None:
    """A new screen comes into view with the focus, unless a card or dialog that waits for an answer has it."""
    active = dom.active_element()
    if active is not None and dom.closest(active, AWAITED) is not None:
        return
    dom.bring_to_attention(dom.element(SCREEN_PANEL))


class DomView:
    def __init__(self, on_action: Callable[[str, str, str], Any] | None = None,
                 on_timeline: Callable[[TimelineShown], None] | None = None) -> None:
        self.on_timeline = on_timeline  # where the timeline is drawn (app.timeline's panel)
        self.renderer = KeyedRenderer("sw-screen", on_action=on_action, on_new_screen=_present_screen)
        self.renderer.attach()

    def reset(self) -> None:
        dom.set_html("sw-timeline", "")
        self.clear_live()  # another inspection's screen must not stay

    def clear_live(self) -> None:
        """Transcript, tool calls and screen emptied, to be drawn again from a state (a time-travel run)."""
        for node_id in ("sw-transcript", "sw-tool-calls", "sw-screen-issues"):
            dom.set_html(node_id, "")
        self.renderer.reset()

    def user_text(self, message_id: str, text: str) -> None:
        """The inspector's own words in the transcript (what `session.conversation` sent)."""
        node = self._child("sw-transcript", "p", "data-message-id", message_id)
        node.className = "sw-said"
        node.textContent = text

    def status(self, text: str) -> None:
        dom.show_status(text)

    def agent_text(self, message_id: str, text: str) -> None:
        node = self._child("sw-transcript", "p", "data-message-id", message_id)
        node.textContent = text

    def tool_call(self, call_id: str, name: str, state: str, detail: str = "",
                  answer: ExpectedAnswer | None = None) -> None:
        """The call's row: its title and code name, its state (or an expected answer's words), its detail."""
        node = self._child("sw-tool-calls", "li", "data-call-id", call_id)
        node.dataset.state = state
        node.dataset.tool = name
        if answer is not None:
            node.dataset.answer = answer.code  # an ordinary answer: styled as such, not as a failure
        elif node.hasAttribute("data-answer"):
            node.removeAttribute("data-answer")
        head = self._part(node, "span", "sw-tool-head", first=True)  # its arguments' node is left alone
        dom.set_html(head, render_template("tool_call.j2", name=name, state=state, detail=detail, answer=answer))

    def tool_args(self, call_id: str, text: str, replace: bool = False) -> None:
        """Only the new text goes into the call's argument node (a snapshot replaces it)."""
        args = self._part(self._child("sw-tool-calls", "li", "data-call-id", call_id), "code", "sw-tool-args")
        args.tabIndex = 0  # it scrolls when long: a keyboard must reach it (axe: scrollable-region-focusable)
        if replace:
            args.textContent = text
        elif text:
            args.append(text)  # a text node: the browser parses nothing, and the text before stays as it is

    def screen(self, spec: Mapping[str, object]) -> None:
        self.renderer.show(spec)
        dom.set_html("sw-screen-issues", "")

    def action_result(self, element_id: str, status: str) -> None:
        """The agent's answer to a ConfirmButton: done | replayed | refused, on the button."""
        node = dom.query(dom.element("sw-screen"), f'[data-sw-id="{dom.css_escape(element_id)}"]')
        if node is not None:
            node.dataset.swActionState = status

    def screen_issues(self, issues: list[Issue], fallback: list[str]) -> None:
        """The issues, and the failed screen's text as plain lines (escaped by the template)."""
        dom.set_html("sw-screen-issues", render_template("issues.j2", issues=issues)
                     + render_template("screen_fallback.j2", lines=fallback))

    def timeline(self, shown: TimelineShown) -> None:
        if self.on_timeline is not None:
            self.on_timeline(shown)

    def _part(self, node: Any, tag: str, class_name: str, first: bool = False) -> Any:
        """The node's own child of this class, created once (first, or after the others)."""
        part = dom.query(node, f":scope > {tag}.{class_name}")
        if part is None:
            part = dom.create(tag)
            part.className = class_name
            if first:
                node.insertBefore(part, node.firstChild)
            else:
                node.appendChild(part)
        return part

    def _child(self, parent_id: str, tag: str, attribute: str, key: str) -> Any:
        """The parent's child keyed by `attribute`, created once and then updated in place."""
        parent = dom.element(parent_id)
        selector = f'{tag}[{attribute}="{dom.css_escape(key)}"]'
        node = dom.query(parent, selector)
        if node is None:
            node = dom.create(tag)
            node.setAttribute(attribute, key)
            parent.appendChild(node)
        return node
