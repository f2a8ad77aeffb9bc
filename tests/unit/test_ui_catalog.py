"""The catalog's components: props limits, tokens, templates, and the schema the model sees."""

import pytest

from sitewalk.ui.render import REGISTRY, render_spec
from sitewalk.ui.templating import TEMPLATES
from sitewalk_shared.contracts.catalog import ACCEPTS_CHILDREN, CATALOG, ActionName, catalog_json_schema
from sitewalk_shared.ui_spec.validate import validate_spec

SCREEN = {
    "root": "screen",
    "elements": {
        "screen": {"type": "Stack", "props": {"gap": "lg"}, "children": ["title", "card", "steps", "rule", "actions"]},
        "title": {"type": "Heading", "props": {"text": "Pier 4", "level": 2}},
        "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"},
                 "children": ["risk", "weather"]},
        "risk": {"type": "RiskBadge", "props": {"level": "high"}},
        "weather": {"type": "Field", "props": {"label": "Weather", "value": "Rain"}},
        "steps": {"type": "Checklist", "props": {"title": "Steps", "items": [
            {"id": "rails", "label": "Check the rails"}, {"id": "bolts", "label": "Bolts", "checked": True}]}},
        "rule": {"type": "Divider"},
        "actions": {"type": "Row", "props": {"align": "between"}, "children": ["order", "done"]},
        "order": {"type": "ConfirmButton", "props": {"label": "Create work order", "action": "create_work_order",
                                                     "variant": "danger", "subject": "risk-3"}},
        "done": {"type": "ConfirmButton", "props": {"label": "Mark inspected", "action": "mark_inspected"}},
    },
}


def test_every_component_has_a_template_and_a_when_to_use_description():
    schema = catalog_json_schema()
    assert set(schema) == set(CATALOG) == set(REGISTRY)
    for name, entry in schema.items():
        assert (TEMPLATES / REGISTRY[name]).exists()
        assert len(entry["description"]) > 30 and "Use" in entry["description"], name
        assert entry["children"] == (name in ACCEPTS_CHILDREN)
        for field, prop in entry["props"].get("properties", {}).items():
            assert prop.get("description"), f"{name}.{field} has no description"


def test_a_full_inspection_screen_is_valid_and_renders_every_element():
    assert validate_spec(SCREEN) == []
    html = render_spec(SCREEN)
    for key in SCREEN["elements"]:
        assert f'data-sw-id="{key}"' in html
    assert 'data-sw-action="create_work_order"' in html and 'type="checkbox"' in html
    assert 'role="list"' in html and 'role="separator"' in html and "<h2" in html
    assert html.count("sw-touch") == 4  # two checklist rows and two buttons are touch targets
    assert " checked" in html and "onclick" not in html


def _props(kind, **props):
    return {"root": "x", "elements": {"x": {"type": kind, "props": props}}}


@pytest.mark.parametrize("spec", [
    _props("ConfirmButton", label="Delete site", action="delete_site"),  # not in the allowlist
    _props("ConfirmButton", label="Go", action="mark_inspected", variant="red"),
    _props("ConfirmButton", label="Go", action="mark_inspected", href="https://x.example"),
    _props("ConfirmButton", label="Go", action="mark_inspected", subject="a b<c>"),
    _props("ConfirmButton", label="", action="mark_inspected"),
    _props("Checklist", items=[]),
    _props("Checklist", items=[{"id": "a", "label": "x"}] * 2),  # ids must be unique
    _props("Checklist", items=[{"id": f"i{n}", "label": "x"} for n in range(51)]),
    _props("Checklist", items=[{"id": "a", "label": "x", "colour": "red"}]),
    _props("Heading", text="x", level=1),
    _props("Row", gap="12px"),
    _props("Divider", style="border:0"),
    _props("Field", label="x" * 61, value="v"),
])
def test_props_outside_the_schema_are_invalid_props(spec):
    assert [i.code for i in validate_spec(spec)] == ["invalid_props"]


def test_leaf_components_take_no_children_but_layouts_do():
    spec = {"root": "r", "elements": {"r": {"type": "Row", "children": ["b"]},
                                      "b": {"type": "ConfirmButton", "children": ["r2"],
                                            "props": {"label": "Go", "action": "mark_inspected"}},
                                      "r2": {"type": "Divider"}}}
    assert [(i.code, i.element) for i in validate_spec(spec)] == [("invalid_props", "b")]


def test_action_allowlist_is_the_enum_in_the_schema():
    props = catalog_json_schema()["ConfirmButton"]["props"]
    enum = props["$defs"]["ActionName"]["enum"]
    assert set(enum) == {a.value for a in ActionName}


def test_payloads_in_new_components_render_as_inert_text():
    payload = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    spec = {"root": "s", "elements": {
        "s": {"type": "Stack", "children": ["c", "f", "h", "b"]},
        "c": {"type": "Checklist", "props": {"title": payload, "items": [{"id": "a", "label": payload}]}},
        "f": {"type": "Field", "props": {"label": payload, "value": payload}},
        "h": {"type": "Heading", "props": {"text": payload}},
        "b": {"type": "ConfirmButton", "props": {"label": payload, "action": "mark_inspected"}},
    }}
    assert validate_spec(spec) == []
    html = render_spec(spec)
    assert "<script" not in html and "<img" not in html and 'onerror=alert' in html.replace("&#34;", '"')
    assert "&lt;script&gt;" in html
