"""The business idempotency key of a work order: from the substance of the screen a ConfirmButton was
confirmed on, or from the arguments of a reviewed `create_work_order` call (that rule lives in
`sitewalk_shared.contracts.field_actions`, shared with the browser, and is re-exported here).

See the package docstring for the rule. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitewalk_shared.contracts.canonical import sha256_of
from sitewalk_shared.contracts.field_actions import reviewed_order_key, reviewed_substance

__all__ = ["reviewed_order_key", "reviewed_substance", "substance_of", "work_order_key"]


def _elements_of(ui_spec: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    elements = (ui_spec or {}).get("elements") or {}
    return [e.get("props") or {} for e in elements.values() if isinstance(e, dict) and e.get("type") == kind]


def substance_of(inspection_id: str | None, subject: str, ui_spec: dict[str, Any] | None) -> dict[str, Any]:
    """What makes a work order a different order: inspection, subject, risk level and findings (a set)."""
    risks = sorted({str(p.get("level", "")) for p in _elements_of(ui_spec, "RiskBadge")})
    findings = sorted({" ".join(str(f).split()) for p in _elements_of(ui_spec, "InspectionCard")
                       for f in p.get("findings") or []})
    return {"inspection_id": inspection_id or "unknown", "subject": subject or "unnamed",
            "risk": ",".join(risks) or "none", "findings": findings}


def work_order_key(substance: Mapping[str, object]) -> str:
    """`work-order:{inspection}:{subject}:{risk}:{digest}`: equal substances give equal keys."""
    digest = sha256_of(substance)[:12]
    return f"work-order:{substance['inspection_id']}:{substance['subject']}:{substance['risk']}:{digest}"
