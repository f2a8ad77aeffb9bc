"""The generative-UI spec: a flat map of elements keyed by id, plus the root id.

Shape compatible with json-render: {"root": "card", "elements": {"card": {"type": ..., "props":
{...}, "children": ["badge"]}}}. Sitewalk adds an identity (message id, tool call id, revision)
so the browser can tell which spec is current.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

RENDER_UI_TOOL = "render_ui"
# A screen written as JSON-patch lines in the agent's text (see sitewalk_shared.ui_spec.inline) has no
# tool call; it is named after its message, under this pseudo tool name.
INLINE_SPEC = "inline_spec"


def inline_spec_call_id(message_id: str) -> str:
    """The call id that stands for a message's inline screen (in identities and idempotency keys)."""
    return f"{message_id}:{INLINE_SPEC}"


class Element(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str = Field(max_length=64)
    props: dict[str, Any] = Field(default_factory=dict)
    children: list[str] = Field(default_factory=list)


class SpecIdentity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_id: str | None = None
    tool_call_id: str | None = None
    revision: int = 0


class Spec(BaseModel):
    """Structure only; `sitewalk_shared.ui_spec.validate` checks it against the catalog."""

    model_config = ConfigDict(extra="forbid")
    root: str
    elements: dict[str, Element]


class RenderUiArgs(BaseModel):
    """Arguments of the `render_ui` tool the agent calls to show a screen."""

    model_config = ConfigDict(extra="forbid")
    root: str = Field(description="Id of the root element.")
    elements: dict[str, Element] = Field(description="Elements keyed by id; children name other ids.")


def record_screen(spec: dict[str, Any], on_record: dict[str, Any] | None, *, message_id: str | None,
                  tool_call_id: str) -> dict[str, Any]:
    """The screen on record after a validated `spec` takes over: {root, elements, identity}.

    The one place a screen gets its identity, for `render_ui` calls and inline screens alike: the
    revision is one more than the screen on record's. `spec` must be valid (no issues from
    `sitewalk_shared.ui_spec.validate.validate_spec`); elements get their defaults (props {}, children []).
    """
    revision = int(((on_record or {}).get("identity") or {}).get("revision", 0)) + 1
    shape = Spec.model_validate({"root": spec.get("root"), "elements": spec.get("elements")}).model_dump(mode="json")
    identity = SpecIdentity(message_id=message_id, tool_call_id=tool_call_id, revision=revision)
    return {**shape, "identity": identity.model_dump(mode="json")}
