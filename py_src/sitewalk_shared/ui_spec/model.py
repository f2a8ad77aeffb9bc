"""The generative-UI spec: a flat map of elements keyed by id, plus the root id.

Shape compatible with json-render: {"root": "card", "elements": {"card": {"type": ..., "props":
{...}, "children": ["badge"]}}}. Sitewalk adds an identity (message id, tool call id, revision)
so the browser can tell which spec is current.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

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
    props: dict[str, object] = Field(default_factory=dict)
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


class ScreenIdentity(TypedDict):
    """A recorded screen's identity (`SpecIdentity` as JSON)."""

    message_id: str | None
    tool_call_id: str | None
    revision: int


class RecordedScreen(TypedDict):
    """The screen on record (the state's `ui_spec`): a valid spec with its elements' defaults, and its identity."""

    root: str
    elements: dict[str, object]
    identity: ScreenIdentity


def _revision_on(on_record: Mapping[str, object] | None) -> int:
    """The revision of the screen on record (0: none)."""
    identity = (on_record or {}).get("identity") or {}
    if not isinstance(identity, Mapping):
        raise TypeError(f"the screen on record has an identity that is not an object: {identity!r}")
    revision = identity.get("revision", 0)
    if not isinstance(revision, int | float | str):
        raise TypeError(f"the screen on record has a revision that is not a number: {revision!r}")
    return int(revision)


def record_screen(spec: Mapping[str, object], on_record: Mapping[str, object] | None, *, message_id: str | None,
                  tool_call_id: str) -> RecordedScreen:
    """The screen on record after a validated `spec` takes over: {root, elements, identity}.

    The one place a screen gets its identity, for `render_ui` calls and inline screens alike: the
    revision is one more than the screen on record's. `spec` must be valid (no issues from
    `sitewalk_shared.ui_spec.validate.validate_spec`); elements get their defaults (props {}, children []).
    """
    revision = _revision_on(on_record) + 1
    shape = Spec.model_validate({"root": spec.get("root"), "elements": spec.get("elements")}).model_dump(mode="json")
    identity = SpecIdentity(message_id=message_id, tool_call_id=tool_call_id, revision=revision)
    return {"root": shape["root"], "elements": shape["elements"],
            "identity": {"message_id": identity.message_id, "tool_call_id": identity.tool_call_id,
                         "revision": identity.revision}}
