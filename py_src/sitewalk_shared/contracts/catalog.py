"""The generative-UI catalog: the only components a spec may use, each with a props model.

Props are closed (extra="forbid"), bounded, and use design tokens instead of free CSS, colours
or URLs. Each props model's docstring says when to use the component; it and the field
descriptions reach the model's prompt through `catalog_json_schema()`.

A catalog is not authorization: a `ConfirmButton` only names an action from `ActionName`;
the agent server authorizes every action again when the browser sends it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from pydantic.json_schema import JsonSchemaValue

# Ids inside props (checklist items, action subjects): short, no markup, no spaces.
_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"


class Risk(StrEnum):
    unset = "unset"  # nobody has said yet (a blank draft): shown as "not set", never as a level
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class ActionName(StrEnum):
    """The business actions a ConfirmButton may ask the agent for (the agent authorizes them)."""

    create_work_order = "create_work_order"
    mark_inspected = "mark_inspected"
    request_reinspection = "request_reinspection"
    escalate_risk = "escalate_risk"
    close_work_order = "close_work_order"  # the compensation of create_work_order (subject: the order's id)


Gap = Literal["sm", "md", "lg"]


class _Props(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InspectionCardProps(_Props):
    """A summary card for one inspection: title, site, inspector and findings. Use it once per
    inspection as the top of the screen; children render inside it (e.g. a RiskBadge, Fields, a
    Checklist, ConfirmButtons)."""

    title: str = Field(min_length=1, max_length=120, description="Card heading, e.g. 'Inspection 42'.")
    site: str = Field(max_length=200, description="Where the inspection takes place.")
    inspector: str = Field(default="", max_length=120, description="Who inspects; empty if unknown.")
    findings: list[str] = Field(default_factory=list, max_length=50,
                                description="Short findings, one sentence each.")


class RiskBadgeProps(_Props):
    """A badge showing the risk level of an inspection or a finding. Use it next to what it
    rates; the level picks the colour, never send colours."""

    level: Risk = Field(description="Risk level token.")
    label: str = Field(default="", max_length=60, description="Text on the badge; defaults to the level.")


class TextProps(_Props):
    """A paragraph of plain text. Use it for explanations and notes; no markup is interpreted."""

    text: str = Field(max_length=2000, description="Plain text; HTML is shown literally.")


class StackProps(_Props):
    """A vertical layout of its children. Use it as the root when the screen has several parts."""

    gap: Gap = Field(default="md", description="Space between children (design token).")


class RowProps(_Props):
    """A horizontal layout of its children that wraps on narrow screens. Use it for a few short
    items side by side, e.g. two ConfirmButtons or a RiskBadge next to a Field."""

    gap: Gap = Field(default="md", description="Space between children (design token).")
    align: Literal["start", "center", "end", "between"] = Field(
        default="start", description="Horizontal alignment of the children (design token).")


class HeadingProps(_Props):
    """A section heading. Use it to title a part of the screen; level 2 is the largest."""

    text: str = Field(min_length=1, max_length=120, description="Heading text.")
    level: Literal[2, 3, 4] = Field(default=3, description="Heading level: 2, 3 or 4.")


class DividerProps(_Props):
    """A horizontal rule between parts of the screen. Use it sparingly between sections."""

    spacing: Gap = Field(default="md", description="Space above and below (design token).")


class FieldProps(_Props):
    """One labelled value, e.g. 'Weather: light rain'. Use it for facts about the site or the
    inspection that are not findings."""

    label: str = Field(min_length=1, max_length=60, description="What the value is.")
    value: str = Field(max_length=500, description="The value, as plain text.")


class ChecklistItem(_Props):
    """One item of a checklist."""

    id: str = Field(pattern=_ID_PATTERN, description="Stable item id, unique in the checklist.")
    label: str = Field(min_length=1, max_length=200, description="What to check.")
    checked: bool = Field(default=False, description="Whether it is already done.")


class ChecklistProps(_Props):
    """A list of things to check on site, each with a checked state the inspector can change.
    Use it for the steps of an inspection or the items a work order needs."""

    title: str = Field(default="", max_length=120, description="Optional heading of the list.")
    items: list[ChecklistItem] = Field(min_length=1, max_length=50, description="1 to 50 items.")

    @field_validator("items")
    @classmethod
    def _unique_ids(cls, items: list[ChecklistItem]) -> list[ChecklistItem]:
        seen: set[str] = set()
        for item in items:
            if item.id in seen:
                raise ValueError(f"item id {item.id!r} is used twice")
            seen.add(item.id)
        return items


class ConfirmButtonProps(_Props):
    """A button that asks the agent to perform a business action after the inspector confirms.
    Use it for decisions (create a work order, mark as inspected); the browser never performs
    the action itself, the agent authorizes it. One button per decision."""

    label: str = Field(min_length=1, max_length=60, description="Button text, a verb: 'Create work order'.")
    action: ActionName = Field(description="The action the agent is asked for (allowlist).")
    variant: Literal["primary", "secondary", "danger"] = Field(
        default="primary", description="Visual weight (design token); 'danger' for irreversible actions.")
    subject: str = Field(default="", max_length=64, pattern=r"^$|" + _ID_PATTERN,
                         description="Optional id of what the action concerns, e.g. a finding or risk id.")


CATALOG: dict[str, type[_Props]] = {
    "InspectionCard": InspectionCardProps,
    "RiskBadge": RiskBadgeProps,
    "Text": TextProps,
    "Stack": StackProps,
    "Row": RowProps,
    "Heading": HeadingProps,
    "Divider": DividerProps,
    "Field": FieldProps,
    "Checklist": ChecklistProps,
    "ConfirmButton": ConfirmButtonProps,
}

# Components whose template renders children; the others must have none.
ACCEPTS_CHILDREN = frozenset({"InspectionCard", "Stack", "Row"})


def catalog_json_schema() -> JsonSchemaValue:
    """The catalog as JSON Schema, for the model's prompt.

    {type: {"description": when to use it, "children": bool, "props": JSON Schema}}; the props
    schema carries every field's description, enum, limit and default.
    """
    return {
        name: {
            "description": " ".join((model.__doc__ or "").split()),
            "children": name in ACCEPTS_CHILDREN,
            "props": _props_schema(model),
        }
        for name, model in CATALOG.items()
    }


def _props_schema(model: type[_Props]) -> JsonSchemaValue:
    schema = model.model_json_schema()
    schema.pop("description", None)  # the component's description above, said once
    schema.pop("title", None)
    return schema
