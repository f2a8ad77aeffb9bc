"""Generative UI: validate a spec against the catalog and render it with trusted templates."""

from .validate import Issue, validate_spec
from .render import render_spec

__all__ = ["Issue", "render_spec", "validate_spec"]
