"""The jinja2 environment of the app's trusted templates, and `render_template` for the app's own ones.

Apart from `render.py` (the generative-UI catalog, whose pydantic models the first screen does not need),
so that the first screen renders its templates without importing the catalog. Autoescape is on:
data in a context is escaped unless it is itself template output.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from ..base.trusted import TemplateHtml
from ..calls.view import label

TEMPLATES = Path(__file__).parent / "templates"

ENV = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
# A tool call's state reads as its human label ("arguments ready, not run"): only `succeeded` reads done.
ENV.filters["call_label"] = label


def _call_title(name: str) -> str:
    """A tool call reads as its title ("Read the saved draft"); the code name stays beside it. Imported at the
    first call row drawn, not with the first screen: `calls.words` reads the contracts, which need pydantic
    (tests/e2e/test_boot_imports.py)."""
    from ..calls.words import call_title

    return call_title(name)


ENV.filters["call_title"] = _call_title


def render_template(template: str, **context: object) -> TemplateHtml:
    """Render one of the app's own templates (autoescaped: data in `context` is escaped unless it is
    itself template output)."""
    return TemplateHtml(ENV.get_template(template).render(**context))
