"""The page: elements by id, nodes created and queried, HTML written, the status line, the boot shell.

Every lookup that can find nothing returns None, never a JS null (see `values.is_none`).
This is the only module that writes HTML into the page (`set_html`, `insert_html`), through the app's one
Trusted Types policy: the site's CSP makes the browser refuse any other HTML string.
"""

from __future__ import annotations

from typing import Literal

import js
from pyodide.ffi import create_proxy, to_js

from ..base.trusted import POLICY_NAME, PolicyGate, TemplateHtml
from .attention import is_typing
from .values import JsProxy, or_none

__all__ = [
    "active_element",
    "append_to_body",
    "attribute",
    "bring_to_attention",
    "closest",
    "create",
    "css_escape",
    "element",
    "element_at",
    "ensure_element",
    "claim_policy",
    "hide_error",
    "insert_html",
    "is_active",
    "mark_ready",
    "parent",
    "query",
    "replace_html",
    "reload",
    "set_html",
    "shell",
    "show_app",
    "show_error",
    "show_status",
    "take_first_press",
    "typing_elsewhere",
]


def element(element_id: str) -> JsProxy:
    """The element with this id, or None."""
    return or_none(js.document.getElementById(element_id))


def element_at(x: float, y: float) -> JsProxy:
    """The topmost element at this point of the viewport (CSS px), or None."""
    return or_none(js.document.elementFromPoint(x, y))


def query(parent: JsProxy, selector: str) -> JsProxy:
    """The first descendant of `parent` matching the CSS selector, or None."""
    return or_none(parent.querySelector(selector))


def create(tag: str) -> JsProxy:
    """A new, detached element."""
    return js.document.createElement(tag)


def append_to_body(node: object) -> None:
    js.document.body.appendChild(node)


def ensure_element(element_id: str, tag: str, class_name: str, role: str, parent: JsProxy, before: object,
                   label: str = "") -> JsProxy:
    """The element with this id, created once (inserted into `parent` before `before`) if missing. An empty
    `role` leaves the tag's own; a `label` is its accessible name (a named section is a region by itself)."""
    node = element(element_id)
    if node is None:
        node = create(tag)
        node.id = element_id
        node.className = class_name
        if role:
            node.setAttribute("role", role)
        if label:
            node.setAttribute("aria-label", label)
        parent.insertBefore(node, before)
    return node


_gate = PolicyGate()
_policy: list[JsProxy] = []  # the page's one TrustedTypePolicy, once created ([None]: no Trusted Types here)


def claim_policy(service_worker_url: str = "") -> JsProxy:
    """The page's one Trusted Types policy, created on first use (None where the browser has none).

    Called at start-up, so the name is taken before anything else could create a policy by it, with
    the service worker's URL: the policy goes to the boot shell, which registers the worker with it.
    """
    if not _policy:
        _gate.script_urls = (service_worker_url,) if service_worker_url else ()
        factory = or_none(getattr(js.window, "trustedTypes", None))
        rules = {"createHTML": create_proxy(_gate.create_html),  # both live as long as the page
                 "createScriptURL": create_proxy(_gate.create_script_url)}
        policy = None if factory is None else factory.createPolicy(
            POLICY_NAME, to_js(rules, dict_converter=js.Object.fromEntries))
        _policy.append(policy)
        if policy is not None:
            shell().adoptPolicy(policy)  # harmless to hand out: the gate decides what it makes
    return _policy[0]


def set_html(target: str | JsProxy, html: TemplateHtml | Literal[""]) -> None:
    """Replace the content of an element (its id, or the node) with the app's own template output;
    `""` empties it. Anything else is refused (`UntrustedHtml`) before the browser sees it."""
    node = element(target) if isinstance(target, str) else target
    if html == "":
        node.replaceChildren()
        return
    with _gate.admit(html) as text:
        policy = claim_policy()
        node.innerHTML = text if policy is None else policy.createHTML(text)


Where = Literal["beforebegin", "afterbegin", "beforeend", "afterend"]


def insert_html(target: str | JsProxy, where: Where, html: TemplateHtml) -> None:
    """Insert the app's own template output next to or inside an element (its id, or the node), leaving
    its other children as they are (`insertAdjacentHTML`, through the same policy as `set_html`)."""
    node = element(target) if isinstance(target, str) else target
    with _gate.admit(html) as text:
        policy = claim_policy()
        node.insertAdjacentHTML(where, text if policy is None else policy.createHTML(text))


def replace_html(node: JsProxy, html: TemplateHtml) -> None:
    """Put the app's own template output in the node's place (the node itself goes)."""
    insert_html(node, "beforebegin", html)
    node.remove()


def css_escape(text: str) -> str:
    """The text escaped for use inside a CSS selector (`CSS.escape`)."""
    return str(js.CSS.escape(text))


def parent(node: JsProxy) -> JsProxy:
    """The node's parent, or None when it is detached."""
    return or_none(node.parentNode)


def closest(node: JsProxy, selector: str) -> JsProxy:
    """The node itself or its nearest ancestor matching the selector, or None."""
    return or_none(node.closest(selector))


def attribute(node: JsProxy, name: str) -> str | None:
    value = or_none(node.getAttribute(name))
    return None if value is None else str(value)


def active_element() -> JsProxy:
    """The focused element, or None."""
    return or_none(js.document.activeElement)


def is_active(node: JsProxy) -> bool:
    """Whether this node has the focus (JS objects: compare nodes, not proxies)."""
    return bool(node.isSameNode(js.document.activeElement))


def typing_elsewhere() -> bool:
    """Whether the focus is in a text field holding what the inspector is typing (`attention.py`)."""
    node = active_element()
    if node is None:
        return False
    value = or_none(getattr(node, "value", None))
    return is_typing(str(node.tagName), attribute(node, "type") or "", "" if value is None else str(value),
                     bool(getattr(node, "isContentEditable", False)))


def bring_to_attention(node: JsProxy | None) -> bool:
    """Scroll the node into view and focus it (it is focusable: tabindex="-1" at least), unless the
    inspector is typing somewhere: then nothing moves. Whether it did."""
    if node is None or typing_elsewhere():
        return False
    node.focus(to_js({"preventScroll": True}, dict_converter=js.Object.fromEntries))
    node.scrollIntoView(to_js({"block": "start"}, dict_converter=js.Object.fromEntries))
    return True


def show_status(text: str, error: bool = False) -> None:
    """The status line under the Start button; `error` shows it as an error."""
    node = element("sw-status")
    if node is not None:
        node.textContent = text
        node.dataset.error = "1" if error else "0"


def mark_ready() -> None:
    """Tell the page (and the tests) that the app is interactive."""
    js.document.body.dataset.ready = "1"


def take_first_press() -> bool:
    """Whether Start was pressed before Python was ready (web/first_press.js kept it); from this call on,
    the early listener ignores presses, so a press is taken by exactly one of the two."""
    early = or_none(getattr(js.window, "sitewalkFirstPress", None))
    return bool(early.take()) if early is not None else False


def shell() -> JsProxy:
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
