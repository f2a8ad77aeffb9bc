"""The list as last read: the row template boot.js fills is the app's own inspections.j2, and filling it the
way boot.js does (each "@sw:..." placeholder swapped for its value, in one pass, as text) gives exactly what
the app renders for that entry, whatever the inspector typed as an inspection id."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

from sitewalk.inspection_status import InspectionStatus, Phase
from sitewalk.inspections import Inspection
from sitewalk.ui.first_screen import first_screen
from sitewalk.ui.seen_inspections import PLACEHOLDER, VERSION, row_fields, seen_record
from sitewalk.ui.templating import render_template

ROW_TEMPLATE = re.compile(r'<template id="sw-inspection-row">(.*?)</template>', re.S)
PLACEHOLDERS = re.compile(r"@sw:[a-z-]+")  # the same pattern as web/boot.js's PLACEHOLDERS


def _row_template() -> str:
    found = ROW_TEMPLATE.search(str(first_screen()))
    assert found, "the first screen has no row template"
    return found.group(1)


def _filled_as_boot_js_does(template: str, fields: dict[str, str]) -> str:
    """boot.js sets attribute values and text nodes, never markup: as the template's autoescape does."""
    return PLACEHOLDERS.sub(lambda m: str(escape(fields[m.group()])), template)


def _entry(inspection_id: str) -> Inspection:
    return Inspection("thread-1", inspection_id, "2026-12-05T19:04:16.123456+00:00",
                      InspectionStatus(Phase.waiting, "waiting for your review"))


def test_the_row_template_has_exactly_the_placeholders_a_row_fills():
    assert set(PLACEHOLDERS.findall(_row_template())) == set(row_fields(_entry("x")))
    assert PLACEHOLDER.thread_id in _row_template()


@pytest.mark.parametrize("inspection_id", [
    "inspection-42",
    'roof <b>"north"</b> & co',
    "@sw:thread-id",  # a value that looks like a placeholder is not filled again
    "@sw:nonsense-text",
])
def test_filling_the_row_gives_what_the_app_renders_for_the_entry(inspection_id):
    entry = _entry(inspection_id)
    rendered = str(render_template("inspections.j2", entries=[entry], current=None))
    assert _filled_as_boot_js_does(_row_template(), row_fields(entry)) == rendered


def test_the_record_names_its_server_and_time_and_keeps_a_row_per_entry():
    entries = [_entry("a"), _entry("b")]
    record = json.loads(seen_record("http://127.0.0.1:2024", entries, "2026-12-05T19:05:00+00:00"))
    assert record == {"v": VERSION, "server": "http://127.0.0.1:2024", "readAt": "2026-12-05T19:05:00+00:00",
                      "rows": [row_fields(entries[0]), row_fields(entries[1])]}
    assert record["rows"][1][PLACEHOLDER.inspection_id] == "b"
    assert record["rows"][0][PLACEHOLDER.updated_text] == "2026-12-05 19:04:16"
