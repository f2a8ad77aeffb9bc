"""The first screen, rendered at build time into index.html, so the inspector can type before Python runs.

The build's CPython renders the app's own templates (``python -m sitewalk.ui.first_screen``, with the
app's sources first on the path, so it is the app being built that renders, with the same jinja2 settings
as in the browser) and puts the HTML into web/index.html's placeholder. There is no second copy of the
markup: the app, once booted, attaches to what it finds (sitewalk/app/__init__.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sitewalk_build.errors import BuildError

PLACEHOLDER = "<!--SITEWALK:FIRST-SCREEN-->"
MODULE = "sitewalk.ui.first_screen"


def render_first_screen(app_src: Path) -> str:
    """The first screen's HTML as the app in ``app_src`` renders it."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(app_src), os.environ.get("PYTHONPATH", "")]),
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", MODULE], cwd=app_src, env=env, capture_output=True, text=True,
                          encoding="utf-8", check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise BuildError(f"the first screen did not render ({MODULE}):\n{done.stderr.strip()}")
    return done.stdout


def fill_first_screen(index: Path, html: str) -> None:
    """Put the HTML in place of index.html's one placeholder."""
    text = index.read_text(encoding="utf-8")
    if text.count(PLACEHOLDER) != 1:
        raise BuildError(f"{index.name} must hold the placeholder {PLACEHOLDER} exactly once")
    index.write_text(text.replace(PLACEHOLDER, html), encoding="utf-8")
