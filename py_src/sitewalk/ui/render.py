"""Render a validated spec to HTML with the registry's trusted jinja2 templates.

Autoescape is on and nothing from the model is marked safe: only the rendered children
(our own template output) are passed on as Markup. Every element is wrapped with its id in
`data-sw-id`, so the DOM can be patched per element. What comes out is `TemplateHtml`, the only
HTML the page's Trusted Types policy lets into the DOM (`base/trusted.py`, `bridge/dom.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict, cast

from markupsafe import Markup

from sitewalk_shared.contracts.catalog import CATALOG

from ..base.trusted import TemplateHtml
from .templating import ENV as _env
from .templating import render_template

__all__ = ["REGISTRY", "ElementShape", "SpecShape", "render_element", "render_spec", "render_template", "valid_shape"]

# Registry: catalog type -> trusted template. A type without a template cannot render.
REGISTRY: dict[str, str] = {name: f"{name}.j2" for name in CATALOG}


class ElementShape(TypedDict):
    """One element of a spec that `validate_spec` accepted."""

    type: str
    props: NotRequired[dict[str, object] | None]
    children: NotRequired[list[str] | None]


class SpecShape(TypedDict):
    """A spec that `validate_spec` (or the progressive filter) accepted: a root and its elements by key."""

    root: str
    elements: dict[str, ElementShape]


def valid_shape(spec: Mapping[str, object]) -> SpecShape:
    """A spec already checked (`validate_spec`, or built by the progressive filter) read as its shape: the
    one place the check is taken on trust, so that nothing below it reads the spec untyped. No copy."""
    return cast(SpecShape, spec)


def render_element(key: str, elements: Mapping[str, ElementShape]) -> Markup:
    element = elements[key]
    kind = element["type"]
    props = CATALOG[kind].model_validate(element.get("props") or {})
    children = Markup("").join(render_element(child, elements) for child in element.get("children") or [])
    html = _env.get_template(REGISTRY[kind]).render(id=key, props=props, children=children)
    return Markup(html)


def render_spec(spec: Mapping[str, object]) -> TemplateHtml:
    """HTML for a spec that `validate_spec` accepted."""
    shape = valid_shape(spec)
    return TemplateHtml(render_element(shape["root"], shape["elements"]))
