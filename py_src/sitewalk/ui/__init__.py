"""Generative UI in the browser: render validated specs with trusted templates.

The spec itself (model, validation, patch streams, inline screens) lives in `sitewalk_shared.ui_spec`,
shared with the agent server. Modules here, one concern each (none touches `js`): templating (the
jinja2 environment, the app's own templates), render (the catalog's registry, `render_spec`),
partial_json (incremental parser of streamed arguments), spec_stream (which elements arrived),
progressive (what to show while a spec streams), current (which spec owns the screen), live (the
three together for a view), keyed (what to re-render when the spec changes; shallow templates with
child slots for app/renderer.py), screen_fallback (a screen that failed validation as plain text
lines), __main__ (`python -m sitewalk.ui check|render|schema`). Import each directly: the
package imports none of them (the first screen needs templating only, not the catalog's models).
"""

