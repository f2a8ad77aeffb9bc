"""Keyed rendering, the pure half: what to re-render when a spec changes, and shallow templates.

Each element renders as a *shallow* template: its own markup with a slot in place of each child
(`<sw-slot data-sw-slot="id">`). The DOM renderer fills a slot with the child's existing node,
so re-rendering a parent never rebuilds its unchanged children, and an unchanged element keeps
its node (focus, typed input, checkbox state).

`plan_update(old, new)` compares two specs that `validate_spec` (or the progressive filter)
accepted: an element is *dirty* when it is new or its type, props or children list changed. A
parent whose children list changed is dirty itself (its slots moved), so a dirty element's
parent is dirty whenever the element is new. `top` are the dirty elements that replace their old
node in place; the others are slotted into a dirty parent. No `js` here: it runs under CPython.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from sitewalk_shared.contracts.catalog import CATALOG

from ..base.trusted import TemplateHtml
from .render import REGISTRY, ElementShape, SpecShape, render_template, valid_shape

__all__ = ["Plan", "SLOT_TAG", "plan_update", "shallow_html", "slot_html"]

SLOT_TAG = "sw-slot"


def slot_html(child: str) -> Markup:
    return Markup(f'<{SLOT_TAG} data-sw-slot="{escape(child)}"></{SLOT_TAG}>')


def shallow_html(key: str, element: ElementShape) -> TemplateHtml:
    """One element's template with a slot per child; model data autoescaped, never marked safe."""
    kind = element["type"]
    props = CATALOG[kind].model_validate(element.get("props") or {})
    children = Markup("").join(slot_html(child) for child in element.get("children") or [])
    return render_template(REGISTRY[kind], id=key, props=props, children=children)


@dataclass
class Plan:
    """dirty: ids to (re)render, children before parents; top: dirty ids that replace their old
    node in place (the others go into a dirty parent's slot); removed: ids no longer reachable;
    root_changed: the screen's root node is another one."""

    dirty: list[str] = field(default_factory=list)
    top: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    root_changed: bool = False
    reach: tuple[list[str], dict[str, list[str]]] = ([], {})  # the new spec's (order, parents)

    @property
    def empty(self) -> bool:
        return not (self.dirty or self.removed or self.root_changed)


def _reachable(spec: SpecShape | None) -> tuple[list[str], dict[str, list[str]]]:
    """Ids reachable from the root in post-order (children first), and each id's parents."""
    if not spec:
        return [], {}
    elements = spec["elements"]
    order: list[str] = []
    parents: dict[str, list[str]] = {spec["root"]: []}
    seen: set[str] = set()
    stack: list[tuple[str, bool]] = [(spec["root"], False)]
    while stack:
        key, expanded = stack.pop()
        if expanded:
            order.append(key)
            continue
        if key in seen:
            continue
        seen.add(key)
        stack.append((key, True))
        for child in reversed(elements[key].get("children") or []):
            parents.setdefault(child, []).append(key)
            if child not in seen:
                stack.append((child, False))
    return order, parents


def _same(a: ElementShape, b: ElementShape) -> bool:
    return (a.get("type") == b.get("type") and (a.get("props") or {}) == (b.get("props") or {})
            and list(a.get("children") or []) == list(b.get("children") or []))


def plan_update(old: Mapping[str, object] | None, new: Mapping[str, object] | None,
                old_reach: tuple[list[str], dict[str, list[str]]] | None = None) -> Plan:
    """`old_reach`: the `reach` of the plan that put `old` on screen, so it is not walked again."""
    return _plan(valid_shape(old) if old is not None else None, valid_shape(new) if new is not None else None,
                 old_reach)


def _plan(old: SpecShape | None, new: SpecShape | None,
          old_reach: tuple[list[str], dict[str, list[str]]] | None) -> Plan:
    old_order, _ = old_reach if old_reach is not None else _reachable(old)
    new_order, parents = _reachable(new)
    old_elements: Mapping[str, ElementShape] = (old.get("elements") if old else None) or {}
    new_elements: Mapping[str, ElementShape] = (new.get("elements") if new else None) or {}
    old_set = set(old_order)
    dirty = {key for key in new_order
             if key not in old_set or not _same(old_elements[key], new_elements[key])}
    # An element shown in several places has one keyed node and copies: when it or one of its
    # parents changes, every parent re-renders, so no copy goes stale and no parent loses it.
    shared = [key for key in new_order if len(parents.get(key, ())) > 1]
    changed = True
    while changed:
        changed = False
        for key in shared:
            if key in dirty or any(p in dirty for p in parents[key]):
                for parent in parents[key]:
                    if parent not in dirty:
                        dirty.add(parent)
                        changed = True
    new_root = new.get("root") if new else None
    root_changed = (old.get("root") if old else None) != new_root
    plan = Plan(root_changed=root_changed, reach=(new_order, parents))
    plan.dirty = [key for key in new_order if key in dirty]
    plan.top = [key for key in plan.dirty
                if key == new_root or not any(p in dirty for p in parents.get(key, ()))]
    new_set = set(new_order)
    plan.removed = [key for key in old_order if key not in new_set]
    return plan
