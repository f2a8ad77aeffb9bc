import copy

import pytest

from sitewalk.ui.render import render_spec
from sitewalk_shared.ui_spec.validate import MAX_DEPTH, MAX_ELEMENTS, validate_spec

GOOD = {
    "root": "card",
    "elements": {
        "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4",
                                                      "findings": ["rust"]}, "children": ["risk"]},
        "risk": {"type": "RiskBadge", "props": {"level": "high", "label": "High"}, "children": []},
    },
}


def codes(spec):
    return [(i.code, i.element) for i in validate_spec(spec)]


def test_good_spec_has_no_issues_and_renders_every_element():
    assert validate_spec(GOOD) == []
    html = render_spec(GOOD)
    assert 'data-sw-id="card"' in html and 'data-sw-id="risk"' in html and "Pier 4" in html


def mutate(fn):
    spec = copy.deepcopy(GOOD)
    fn(spec)
    return spec


@pytest.mark.parametrize(
    "spec, expected",
    [
        (mutate(lambda s: s.update(root="nope")), ("missing_root", "nope")),
        (mutate(lambda s: s["elements"]["risk"].update(type="Marquee")), ("unknown_type", "risk")),
        (mutate(lambda s: s["elements"]["risk"]["props"].update(level="purple")), ("invalid_props", "risk")),
        (mutate(lambda s: s["elements"]["risk"]["props"].update(style="color:red")), ("invalid_props", "risk")),
        (mutate(lambda s: s["elements"]["card"]["children"].append("ghost")), ("missing_child", "card")),
        (mutate(lambda s: s["elements"].update(loose={"type": "Text", "props": {"text": "x"}})), ("orphan", "loose")),
        (mutate(lambda s: s["elements"]["card"]["children"].append("card")), ("cycle", "card")),
        ({"root": "a"}, ("invalid_shape", None)),
        (mutate(lambda s: s["elements"]["risk"].update(visible=False)), ("invalid_shape", "risk")),
    ],
)
def test_each_issue_code(spec, expected):
    assert expected in codes(spec)


def test_all_issues_are_reported_not_only_the_first():
    spec = mutate(
        lambda s: (s["elements"]["risk"].update(type="Marquee"), s["elements"]["card"]["children"].append("x"))
    )
    found = {c for c, _ in codes(spec)}
    assert {"unknown_type", "missing_child"} <= found
    assert all(i.repair for i in validate_spec(spec))


def test_too_deep_and_too_large():
    deep = {
        "root": "s0",
        "elements": {f"s{i}": {"type": "Stack", "children": [f"s{i + 1}"]} for i in range(MAX_DEPTH + 2)},
    }
    deep["elements"][f"s{MAX_DEPTH + 2}"] = {"type": "Text", "props": {"text": "end"}}
    assert "too_deep" in {c for c, _ in codes(deep)}
    large = {"root": "r", "elements": {"r": {"type": "Stack", "children": [f"t{i}" for i in range(MAX_ELEMENTS)]}}}
    large["elements"].update({f"t{i}": {"type": "Text", "props": {"text": "x"}} for i in range(MAX_ELEMENTS)})
    assert "too_large" in {c for c, _ in codes(large)}


def test_props_with_markup_render_as_inert_text():
    payload = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    spec = mutate(lambda s: s["elements"]["card"]["props"].update(title=payload, site=payload))
    assert validate_spec(spec) == []
    html = render_spec(spec)
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
