"""Render a validated spec to HTML with the registry's trusted jinja2 templates.

Autoescape is on and nothing from the model is marked safe: only the rendered children
(our own template output) are passed on as Markup. Every element is wrapped with its id in
`data-sw-id`, so the DOM can be patched per element. What comes out is `TemplateHtml`, the only
HTML the page's Trusted Types policy lets into the DOM (`base/trusted.py`, `bridge/dom.py`).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from sitewalk_shared.contracts.catalog import CATALOG

from ..base.trusted import TemplateHtml
from .templating import ENV as _env
from .templating import render_template

__all__ = ["REGISTRY", "render_element", "render_spec", "render_template"]

# Registry: catalog type -> trusted template. A type without a template cannot render.
REGISTRY: dict[str, str] = {name: f"{name}.j2" for name in CATALOG}


def render_element(key: str, elements: dict[str, Any]) -> Markup:
    element = elements[key]
    kind = element["type"]
    props = CATALOG[kind].model_validate(element.get("props") or {})
    children = Markup("").join(render_element(child, elements) for child in element.get("children") or [])
    html = _env.get_template(REGISTRY[kind]).render(id=key, props=props, children=children)
    return Markup(html)


def render_spec(spec: dict[str, Any]) -> TemplateHtml:
    """HTML for a spec that `validate_spec` accepted."""
    return TemplateHtml(render_element(spec["root"], spec["elements"]))
