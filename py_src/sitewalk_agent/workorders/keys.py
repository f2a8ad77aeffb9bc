"""The business idempotency key of a work order: from the substance of the screen a ConfirmButton was
confirmed on, or from the arguments of a reviewed `create_work_order` call.

See the package docstring for the rule. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

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


def work_order_key(substance: dict[str, Any]) -> str:
    """`work-order:{inspection}:{subject}:{risk}:{digest}`: equal substances give equal keys."""
    canonical = json.dumps(substance, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    return f"work-order:{substance['inspection_id']}:{substance['subject']}:{substance['risk']}:{digest}"


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def reviewed_substance(inspection_id: str, subject: str) -> dict[str, Any]:
    """The substance of a reviewed order: the inspection and the subject, as words (case, spacing and
    punctuation do not make another order; any script counts). The priority is not substance: asking
    again for the same repair with another priority returns the order filed first."""
    return {"inspection_id": inspection_id, "subject": " ".join(_words(subject)) or subject.strip()}


def reviewed_order_key(substance: dict[str, Any]) -> str:
    """`work-order:{inspection}:{subject slug}:{digest}`: the key of a reviewed `create_work_order`.

    The slug is for people (at most 60 characters); the digest, over the whole substance, is what
    tells two orders apart."""
    canonical = json.dumps(substance, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    slug = "-".join(_words(str(substance["subject"])))[:60].strip("-") or "order"
    return f"work-order:{substance['inspection_id']}:{slug}:{digest}"
