"""The app's only HTML is its template output (`base/trusted.py`), and only the bridge writes it.

The browser half (the Trusted Types policy refusing page script) is in
tests/e2e/test_site_policy_in_browser.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markupsafe import Markup

from sitewalk.base.trusted import PolicyGate, TemplateHtml, UntrustedHtml
from sitewalk.ui.keyed import shallow_html
from sitewalk.ui.render import render_spec, render_template

SITEWALK = Path(__file__).resolve().parents[2] / "py_src" / "sitewalk"
HOSTILE = '<img src=x onerror="alert(1)">'
SPEC = {"root": "t", "elements": {"t": {"type": "Text", "props": {"text": HOSTILE}, "children": []}}}


def test_every_renderer_returns_template_html_with_model_text_escaped():
    for html in (render_spec(SPEC), shallow_html("t", SPEC["elements"]["t"]),
                 render_template("screen_fallback.j2", lines=[HOSTILE])):
        assert isinstance(html, TemplateHtml)
        assert "<img" not in html and "&lt;img" in html


def test_joined_with_a_plain_string_the_string_is_escaped_and_the_result_stays_trusted():
    joined = render_template("screen_fallback.j2", lines=["a"]) + HOSTILE
    assert isinstance(joined, TemplateHtml) and "<img" not in joined
    assert type(render_spec(SPEC) + render_spec(SPEC)) is TemplateHtml


def test_the_gate_admits_template_html_only():
    gate = PolicyGate()
    with pytest.raises(UntrustedHtml):
        with gate.admit(HOSTILE):
            pass
    with pytest.raises(UntrustedHtml):
        with gate.admit(Markup("<b>marked safe elsewhere</b>")):
            pass


def test_create_html_passes_the_admitted_text_and_nothing_else():
    gate = PolicyGate()
    html = render_spec(SPEC)
    with pytest.raises(UntrustedHtml):
        gate.create_html(str(html))  # nothing admitted: even the app's own text is refused
    with gate.admit(html) as text:
        assert gate.create_html(text) == text
        with pytest.raises(UntrustedHtml):
            gate.create_html(HOSTILE)  # page script holding the policy, while the app writes
    with pytest.raises(UntrustedHtml):
        gate.create_html(text)  # the block is over


def test_create_script_url_vouches_for_the_service_worker_only():
    gate = PolicyGate(("https://site.test/field/sw.js",))
    assert gate.create_script_url("https://site.test/field/sw.js") == "https://site.test/field/sw.js"
    for other in ("https://site.test/field/boot.js", "https://evil.test/sw.js", "data:text/javascript,1"):
        with pytest.raises(UntrustedHtml):
            gate.create_script_url(other)
    with pytest.raises(UntrustedHtml):
        PolicyGate().create_script_url("https://site.test/field/sw.js")


SINKS = re.compile(r"\b(innerHTML|outerHTML|insertAdjacentHTML|srcdoc|createContextualFragment|parseFromString"
                   r"|document\.write)\b|\.src\s*=")


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines without comments and docstrings' prose (a line of a docstring may name a sink)."""
    lines, in_doc = [], False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        quotes = line.count('"""')
        if in_doc or quotes:
            in_doc = in_doc != (quotes % 2 == 1)
            continue
        lines.append((number, line.split("#", 1)[0]))
    return lines


def test_only_the_bridge_writes_html_into_the_page():
    writes = [f"{path.relative_to(SITEWALK)}:{number}" for path in sorted(SITEWALK.rglob("*.py"))
              for number, line in _code_lines(path) if SINKS.search(line)]
    dom = SITEWALK / "bridge" / "dom.py"  # set_html and insert_html, both through the one policy
    assert writes == [f"bridge/dom.py:{_line_of(dom, 'node.innerHTML =')}",
                      f"bridge/dom.py:{_line_of(dom, 'node.insertAdjacentHTML(')}"], writes


def test_only_the_renderers_make_template_html():
    """The jinja2 environment (templating.py: the app's own templates) and the catalog's renderer
    (render.py: a validated spec) are the only makers of TemplateHtml."""
    makers = [str(path.relative_to(SITEWALK)) for path in sorted(SITEWALK.rglob("*.py"))
              if re.search(r"(?<!class )\bTemplateHtml\(", path.read_text())]
    assert makers == ["ui/render.py", "ui/templating.py"], makers


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)
