"""Generative UI in the browser: render validated specs with trusted templates.

The spec itself (model, validation, patch streams, inline screens) lives in `sitewalk_shared.ui_spec`,
shared with the agent server. Modules here, one concern each (none touches `js`): render
(jinja2 registry), partial_json (incremental parser of streamed arguments), spec_stream (which
elements arrived), progressive (what to show while a spec streams), current (which spec owns
the screen), live (the three together for a view), keyed (what to re-render when the spec
changes; shallow templates with child slots for app/renderer.py),
__main__ (`python -m sitewalk.ui check|render|schema`). Import the streaming ones directly.
"""

from .render import render_spec

__all__ = ["render_spec"]
