"""Generative UI: validate a spec against the catalog and render it with trusted templates.

Modules, one concern each (none touches `js`): validate (issues with codes and repairs),
render (jinja2 registry), partial_json (incremental parser of streamed arguments), spec_stream
(which elements arrived), patch_stream (RFC 6902 line streams), progressive (what to show while
a spec streams), current (which spec owns the screen), live (the three together for a view), keyed (what
to re-render when the spec changes; shallow templates with child slots for app/renderer.py),
__main__ (`python -m sitewalk.ui check|render|schema`). Import the streaming ones directly.
"""

from .render import render_spec
from .validate import Issue, validate_spec

__all__ = ["Issue", "render_spec", "validate_spec"]
