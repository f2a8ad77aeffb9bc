"""Render a validated spec to HTML with the registry's trusted jinja2 templates.

Autoescape is on and nothing from the model is marked safe: only the rendered children
(our own template output) are passed on as Markup. Every element is wrapped with its id in
`data-sw-id`, so the DOM can be patched per element. What comes out is `TemplateHtml`, the only
HTML the page's Trusted Types policy lets into the DOM (`base/trusted.py`, `bridge/dom.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from sitewalk_shared.contracts.catalog import CATALOG

from ..base.trusted import TemplateHtml
from ..calls.lifecycle import LABELS

_TEMPLATES = Path(__file__).parent / "templates"

# Registry: catalog type -> trusted template. A type without a template cannot render.
REGISTRY: dict[str, str] = {name: f"{name}.j2" for name in CATALOG}

_env = Environment(
    loader=FileSystemLoader(str(_TEMPLATES)),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
# A tool call's state reads as its human label ("arguments ready, not run"): only `succeeded` reads done.
_env.filters["call_label"] = lambda state: LABELS.get(state, state)


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


def render_template(template: str, **context: Any) -> TemplateHtml:
    """Render one of the app's own templates (autoescaped: data in `context` is escaped unless it is
    itself template output)."""
    return TemplateHtml(_env.get_template(template).render(**context))
