"""The page: elements by id, nodes created and queried, the status line and the boot shell.

Every lookup that can find nothing returns None, never a JS null (see `values.is_none`).
"""

from __future__ import annotations

from typing import Any

import js

from .values import or_none

__all__ = [
    "active_element",
    "append_to_body",
    "attribute",
    "closest",
    "create",
    "css_escape",
    "element",
    "ensure_element",
    "hide_error",
    "is_active",
    "mark_ready",
    "parent",
    "query",
    "reload",
    "set_html",
    "shell",
    "show_app",
    "show_error",
    "show_status",
]


def element(element_id: str) -> Any:
    """The element with this id, or None."""
    return or_none(js.document.getElementById(element_id))


def query(parent: Any, selector: str) -> Any:
    """The first descendant of `parent` matching the CSS selector, or None."""
    return or_none(parent.querySelector(selector))


def create(tag: str) -> Any:
    """A new, detached element."""
    return js.document.createElement(tag)


def append_to_body(node: Any) -> None:
    js.document.body.appendChild(node)


def ensure_element(element_id: str, tag: str, class_name: str, role: str, parent: Any, before: Any) -> Any:
    """The element with this id, created once (inserted into `parent` before `before`) if missing."""
    node = element(element_id)
    if node is None:
        node = create(tag)
        node.id = element_id
        node.className = class_name
        node.setAttribute("role", role)
        parent.insertBefore(node, before)
    return node


def set_html(element_id: str, html: str) -> None:
    element(element_id).innerHTML = html


def css_escape(text: str) -> str:
    """The text escaped for use inside a CSS selector (`CSS.escape`)."""
    return str(js.CSS.escape(text))


def parent(node: Any) -> Any:
    """The node's parent, or None when it is detached."""
    return or_none(node.parentNode)


def closest(node: Any, selector: str) -> Any:
    """The node itself or its nearest ancestor matching the selector, or None."""
    return or_none(node.closest(selector))


def attribute(node: Any, name: str) -> str | None:
    value = or_none(node.getAttribute(name))
    return None if value is None else str(value)


def active_element() -> Any:
    """The focused element, or None."""
    return or_none(js.document.activeElement)


def is_active(node: Any) -> bool:
    """Whether this node has the focus (JS objects: compare nodes, not proxies)."""
    return bool(node.isSameNode(js.document.activeElement))


def show_status(text: str, error: bool = False) -> None:
    """The status line under the Start button; `error` shows it as an error."""
    node = element("sw-status")
    if node is not None:
        node.textContent = text
        node.dataset.error = "1" if error else "0"


def mark_ready() -> None:
    """Tell the page (and the tests) that the app is interactive."""
    js.document.body.dataset.ready = "1"


def shell() -> Any:
    """The boot shell's helpers (web/boot.js): showError, hideError, onRetry, setProgress, showApp."""
    return js.window.sitewalkShell


def reload() -> None:
    """Load the page again (after a sign-out: nothing of the signed-out user stays in memory)."""
    js.location.reload()


def show_app() -> None:
    shell().showApp()


def show_error(message: str, detail: str) -> None:
    shell().showError(message, detail)


def hide_error() -> None:
    shell().hideError()
