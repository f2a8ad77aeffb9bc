"""The generative-UI catalog: the only components a spec may use, each with a props model.

Props are closed (extra="forbid"), bounded, and use design tokens instead of free CSS.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Risk(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class _Props(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InspectionCardProps(_Props):
    """A summary card for one inspection; children render inside it (e.g. a RiskBadge)."""

    title: str = Field(min_length=1, max_length=120)
    site: str = Field(max_length=200)
    inspector: str = Field(default="", max_length=120)
    findings: list[str] = Field(default_factory=list, max_length=50)


class RiskBadgeProps(_Props):
    """A badge showing the risk level of an inspection or a finding."""

    level: Risk
    label: str = Field(default="", max_length=60)


class TextProps(_Props):
    """A paragraph of plain text."""

    text: str = Field(max_length=2000)


class StackProps(_Props):
    """A vertical layout of its children."""

    gap: str = Field(default="md", pattern="^(sm|md|lg)$")


CATALOG: dict[str, type[_Props]] = {
    "InspectionCard": InspectionCardProps,
    "RiskBadge": RiskBadgeProps,
    "Text": TextProps,
    "Stack": StackProps,
}

# Components whose template renders children; the others must have none.
ACCEPTS_CHILDREN = frozenset({"InspectionCard", "Stack"})


def catalog_json_schema() -> dict[str, Any]:
    """The catalog as JSON Schema, for the model's prompt."""
    return {
        name: {"description": (model.__doc__ or "").strip(), "props": model.model_json_schema()}
        for name, model in CATALOG.items()
    }
