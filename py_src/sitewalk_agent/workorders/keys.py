"""The business idempotency key of a work order: from the substance of the screen a ConfirmButton was
confirmed on, or from the arguments of a reviewed `create_work_order` call (that rule lives in
`sitewalk_shared.contracts.field_actions`, shared with the browser, and is re-exported here).

See the package docstring for the rule. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypedDict

from sitewalk_shared.contracts.canonical import sha256_of
from sitewalk_shared.contracts.field_actions import reviewed_order_key, reviewed_substance

__all__ = ["Substance", "reviewed_order_key", "reviewed_substance", "substance_of", "work_order_key"]


class Substance(TypedDict):
    """What makes a ConfirmButton's work order a different order (hashed into its key)."""

    inspection_id: str
    subject: str
    risk: str
    findings: list[str]


def _elements_of(ui_spec: Mapping[str, object] | None, kind: str) -> list[Mapping[str, object]]:
    elements = (ui_spec or {}).get("elements") or {}
    if not isinstance(elements, dict):
        return []
    return [e.get("props") or {} for e in elements.values() if isinstance(e, dict) and e.get("type") == kind]


def _listed(value: object) -> Iterable[object]:
    """A prop that holds a list (findings): its items; nothing for an empty or missing one."""
    return value if isinstance(value, Iterable) and value else ()


def substance_of(inspection_id: str | None, subject: str, ui_spec: Mapping[str, object] | None) -> Substance:
    """What makes a work order a different order: inspection, subject, risk level and findings (a set)."""
    risks = sorted({str(p.get("level", "")) for p in _elements_of(ui_spec, "RiskBadge")})
    findings = sorted({" ".join(str(f).split()) for p in _elements_of(ui_spec, "InspectionCard")
                       for f in _listed(p.get("findings"))})
    return {"inspection_id": inspection_id or "unknown", "subject": subject or "unnamed",
            "risk": ",".join(risks) or "none", "findings": findings}


def work_order_key(substance: Mapping[str, object]) -> str:
    """`work-order:{inspection}:{subject}:{risk}:{digest}`: equal substances give equal keys."""
    digest = sha256_of(substance)[:12]
    return f"work-order:{substance['inspection_id']}:{substance['subject']}:{substance['risk']}:{digest}"
