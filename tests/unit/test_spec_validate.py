"""The validator is the one judge of a spec: what it accepts fits the structural model, and its codes are typed."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

from sitewalk_shared.ui_spec.model import Spec, record_screen
from sitewalk_shared.ui_spec.validate import IssueCode, validate_spec

ELEMENTS: dict[str, Any] = {
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "low"}}}
CARD: dict[str, Any] = {"root": "card", "elements": ELEMENTS}
SPEC_DIR = Path(__file__).resolve().parents[2] / "py_src" / "sitewalk_shared" / "ui_spec"


@pytest.mark.parametrize("spec, code, element", [
    ({**CARD, "identity": {"revision": 1}}, "invalid_shape", None),
    ({"root": "card", "elements": {**ELEMENTS, "risk": {"type": "RiskBadge", "props": ["low"]}}},
     "invalid_shape", "risk"),
    ({"root": "card", "elements": {**ELEMENTS, "risk": {"type": "RiskBadge", "props": None}}},
     "invalid_shape", "risk"),
    ({"root": "card", "elements": {**ELEMENTS, "risk": {"type": "RiskBadge", "children": None}}},
     "invalid_shape", "risk"),
    ({"root": 3, "elements": ELEMENTS}, "missing_root", None),
    ({"root": 3}, "invalid_shape", None),
])
def test_what_the_structural_model_refuses_the_validator_names(spec, code, element):
    issues = validate_spec(spec)
    assert (code, element) in [(i.code, i.element) for i in issues]
    with pytest.raises(ValueError):
        Spec.model_validate(spec)


def test_a_spec_without_issues_is_recorded_with_defaults():
    assert validate_spec(CARD) == []
    recorded = record_screen(CARD, None, message_id="msg_1", tool_call_id="call_1")
    assert recorded["elements"]["risk"] == {"type": "RiskBadge", "props": {"level": "low"}, "children": []}
    assert recorded["identity"] == {"message_id": "msg_1", "tool_call_id": "call_1", "revision": 1}
    again = record_screen(CARD, recorded, message_id="msg_2", tool_call_id="call_2")
    assert again["identity"]["revision"] == 2


def test_every_code_the_spec_package_emits_is_in_the_literal():
    emitted = set()
    for path in SPEC_DIR.glob("*.py"):
        emitted |= set(re.findall(r'Issue\(\s*"([a-z_]+)"', path.read_text()))
    assert "invalid_patch" in emitted and "invalid_shape" in emitted
    assert emitted <= set(typing.get_args(IssueCode))
