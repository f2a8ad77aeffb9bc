"""The first screen: `app.j2` rendered without any run-time data.

The build renders it with CPython into index.html (sitewalk_build/prerender.py runs this module), so the
inspection form is usable at first paint, long before Python has booted in the browser. The app renders
the very same output only when a page lacks it, and otherwise attaches to the elements already there
(what the inspector typed, and the focus, stay). What depends on the run (the agent server, the tools'
digests) is filled in later from its own template (`dev_meta.j2`), never baked into the page.

    python -m sitewalk.ui.first_screen    the HTML, on stdout
"""

from __future__ import annotations

import sys

from ..base.trusted import TemplateHtml
from .seen_inspections import PLACEHOLDER
from .templating import render_template

__all__ = ["TEMPLATE", "first_screen"]

TEMPLATE = "app.j2"


def first_screen() -> TemplateHtml:
    """The first screen's HTML: the same for the build and the app (it takes no context)."""
    return render_template(TEMPLATE, seen_row=PLACEHOLDER)  # the row boot.js fills from the list last read


if __name__ == "__main__":
    sys.stdout.write(first_screen())
