"""The first screen in index.html is the app's own template output, rendered by the build (prerender.py)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import build  # noqa: E402
from sitewalk.ui.first_screen import first_screen  # noqa: E402
from sitewalk_build.errors import BuildError  # noqa: E402
from sitewalk_build.prerender import PLACEHOLDER, fill_first_screen, render_first_screen  # noqa: E402

MAIN = re.compile(r'<main id="app" class="app">(.*)</main>', re.S)


@pytest.fixture(scope="module")
def index_html() -> str:
    return (build.ensure_built() / "index.html").read_text(encoding="utf-8")


def test_the_built_page_holds_exactly_what_the_app_renders(index_html):
    found = MAIN.search(index_html)
    assert found, "index.html has no <main id=app>"
    assert found.group(1) == str(first_screen())  # the same templates, byte for byte
    assert PLACEHOLDER not in index_html
    # What the inspector needs before Python: the id, the draft form, the note, Start, the status line.
    for element_id in ("sw-inspection-id", "sw-draft-site", "sw-draft-findings", "sw-note", "sw-start", "sw-status",
                       "sw-inspections"):
        assert f'id="{element_id}"' in found.group(1), element_id


def test_the_first_screen_carries_nothing_of_the_run(index_html):
    # The agent server and the tools' digests are the run's (?server=): filled in by the app, not baked in.
    assert "read_local_draft@" not in index_html
    assert 'id="sw-dev-meta"' in index_html


def test_the_build_renders_with_the_app_sources_it_is_given(tmp_path):
    assert render_first_screen(ROOT / "py_src") == str(first_screen())
    # Another copy of the app, with its own first screen: that one is rendered.
    for package in ("sitewalk", "sitewalk_shared"):  # the app's packages (the browser wheel's)
        shutil.copytree(ROOT / "py_src" / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    template = tmp_path / "sitewalk" / "ui" / "templates" / "app.j2"
    template.write_text(template.read_text().replace("Start inspection", "Begin the walk"))
    assert "Begin the walk" in render_first_screen(tmp_path)
    template.write_text("{{ undefined_name.attr }}")  # a template that cannot render fails the build, saying why
    with pytest.raises(BuildError, match="did not render"):
        render_first_screen(tmp_path)


def test_the_placeholder_must_be_there_once(tmp_path):
    index = tmp_path / "index.html"
    index.write_text("<main></main>")
    with pytest.raises(BuildError, match="exactly once"):
        fill_first_screen(index, "<p>x</p>")
    index.write_text(PLACEHOLDER * 2)
    with pytest.raises(BuildError, match="exactly once"):
        fill_first_screen(index, "<p>x</p>")
    index.write_text(f"<main>{PLACEHOLDER}</main>")
    fill_first_screen(index, "<p>x</p>")
    assert index.read_text() == "<main><p>x</p></main>"
