"""Headless tool contracts: name, description, argument and result models.

The agent server builds its tool schema from these models and the browser validates against
the same ones. `ToolContract.digest` is a hash of the contract, so both sides can tell when
they disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_jsonable_python

if TYPE_CHECKING:
    from pydantic.config import JsonDict

from .canonical import sha256_of

PROTOCOL_VERSION = "sitewalk.headless/1"

def local_only(summary: str | None = None) -> JsonDict:
    """`json_schema_extra` for a result field that never leaves the device. `summary` names a bool
    field of the same model that is sent instead (whether the local field has a value)."""
    return {"local_only": True, **({"local_summary": summary} if summary else {})}


def local_only_field(*, summary: str | None = None, **field: Any) -> Any:
    """A result field that never leaves the device: marked in the schema (`local_only`), and excluded from
    every dump, so a model validated again elsewhere (the agent checks each result against the contract)
    cannot put it back, not even as an empty default. `on_device` is the one dump that keeps it."""
    return Field(exclude=True, json_schema_extra=local_only(summary), **field)


def local_only_fields(model: type[BaseModel]) -> dict[str, str | None]:
    """A result model's local-only fields -> the bool field that summarises each (or None)."""
    found: dict[str, str | None] = {}
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        if extra.get("local_only"):
            found[name] = extra.get("local_summary")  # type: ignore[assignment]
    return found


def outbound(result: BaseModel) -> dict[str, Any]:
    """The JSON that may leave the device: local-only fields dropped, their summaries set."""
    payload = result.model_dump(mode="json")
    for name, summary in local_only_fields(type(result)).items():
        payload.pop(name, None)
        if summary:
            payload[summary] = bool(getattr(result, name, None))
    return payload


def on_device(result: BaseModel) -> dict[str, Any]:
    """The JSON kept on the device: every field, the local-only ones included."""
    payload = result.model_dump(mode="json")
    for name in local_only_fields(type(result)):
        payload[name] = to_jsonable_python(getattr(result, name, None))
    return payload


NOTES_LIMIT = 4000  # characters of private notes a draft keeps
INSPECTION_ID = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$", description="Inspection id, e.g. 'inspection-42'.")


class ReadLocalDraftArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID


class DraftFields(BaseModel):
    """The fields of a draft that the inspector writes; saving and reading share them."""

    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID
    site: str = Field(max_length=200, description="Site name or address.")
    inspector: str = Field(default="", max_length=120)
    findings: list[str] = Field(default_factory=list, max_length=50, description="Findings, one line each.")
    risk: str | None = Field(default=None, pattern="^(low|medium|high|critical)$",
                             description="low, medium, high or critical; null until the inspector sets one.")


class ReadLocalDraftResult(DraftFields):
    """An inspector's draft as kept on the device."""

    updated_at: str | None = Field(default=None, max_length=40, description="ISO 8601 time of the last edit.")
    notes: str = local_only_field(summary="has_notes", default="", max_length=NOTES_LIMIT,
                                  description="The inspector's private notes. Local-only: never sent (see has_notes).")
    has_notes: bool = Field(default=False, description="Whether the draft has private notes (kept on the device).")


@dataclass(frozen=True)
class ToolContract:
    """A headless tool: what the model is told (name, description, schemas, all in `digest`) and what an
    inspector reads of a call to it (`title`, and `expected`: the typed errors that are an ordinary answer,
    each in words, e.g. not_found from a device with no draft). The words are not part of the wire contract."""

    name: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]
    title: str = ""  # the call as a person names it ("Read the saved draft"); every contract has one (tested)
    expected: Mapping[str, str] = dataclasses.field(default_factory=dict, hash=False, compare=False)

    @property
    def digest(self) -> str:
        """sha256 over the canonical JSON of name, description and both schemas (first 16 hex)."""
        body = {
            "name": self.name,
            "description": self.description,
            "args": self.args.model_json_schema(),
            "result": self.result.model_json_schema(),
        }
        return sha256_of(body)[:16]


READ_LOCAL_DRAFT = ToolContract(
    name="read_local_draft",
    title="Read the saved draft",
    expected={"not_found": "No saved draft on this device"},
    description=(
        "Read the inspector's draft for an inspection from the device. Runs in the inspector's "
        "browser. Fails with not_found when there is no draft, corrupt_data when it is unreadable."
    ),
    args=ReadLocalDraftArgs,
    result=ReadLocalDraftResult,
)

class SaveLocalDraftArgs(DraftFields):
    """The draft to keep on the device (it replaces any earlier draft of the same inspection)."""

    notes: str = Field(default="", max_length=NOTES_LIMIT,
                       description="The inspector's private notes, kept with the draft on the device. Reading the "
                                   "draft back never sends them (only has_notes).")


class SaveLocalDraftResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID
    updated_at: str = Field(max_length=40, description="ISO 8601 time the draft was saved.")
    findings: int = Field(ge=0, le=50, description="How many findings were saved.")


SAVE_LOCAL_DRAFT = ToolContract(
    name="save_local_draft",
    title="Save the draft on this device",
    description=(
        "Save the inspector's draft for an inspection on the device (IndexedDB), replacing any earlier "
        "draft of that inspection. Runs in the inspector's browser. Fails with unavailable when the "
        "device cannot store it."
    ),
    args=SaveLocalDraftArgs,
    result=SaveLocalDraftResult,
)


class StartBlankDraftArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID


class StartBlankDraftResult(ReadLocalDraftResult):
    """The draft the device now holds for the inspection: the blank one just started, or the one it had."""

    created: bool = Field(description="True when this call wrote the blank draft; false when the device already "
                                      "held a draft for the inspection (returned as it is, nothing written).")


START_BLANK_DRAFT = ToolContract(
    name="start_blank_draft",
    title="Start a blank draft",
    description=(
        "Start a blank draft (no site, inspector, findings or risk yet) for an inspection on the device, "
        "after read_local_draft failed with not_found; show it so the inspector can fill its fields. Runs in "
        "the inspector's browser. Create-if-absent: when the device already holds a draft for the inspection "
        "it is returned unchanged (created false) and nothing is written, so calling it again is safe. Fails "
        "with corrupt_data when the stored draft is unreadable (it is never replaced: tell the inspector) and "
        "unavailable when the device cannot store it."
    ),
    args=StartBlankDraftArgs,
    result=StartBlankDraftResult,
)


class GetCurrentLocationArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purpose: str = Field(
        min_length=3, max_length=200,
        description="What the position is for, in one sentence the inspector sees before deciding.",
    )
    timeout_ms: int = Field(default=10_000, ge=1, le=60_000, description="How long to wait for a position fix.")
    high_accuracy: bool = Field(default=False, description="Ask for GPS-grade accuracy (slower, more battery).")


class GetCurrentLocationResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # allow_inf_nan=False: NaN passes ge/le checks, and a position must be a real number
    latitude: float = Field(ge=-90, le=90, allow_inf_nan=False, description="WGS 84 degrees.")
    longitude: float = Field(ge=-180, le=180, allow_inf_nan=False, description="WGS 84 degrees.")
    accuracy_m: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                     description="Radius of 95 % confidence, in metres; null for a typed position.")
    timestamp: str = Field(max_length=40, description="ISO 8601 time of the fix, or of the typing (UTC).")
    source: Literal["device", "manual"] = Field(
        description="device: the device's own fix; manual: typed by the inspector because the device gave none "
                    "(no accuracy is known).")


GET_CURRENT_LOCATION = ToolContract(
    name="get_current_location",
    title="Find this device's position",
    description=(
        "Get the device's current position (latitude, longitude, accuracy in metres, time of the fix, source). "
        "Runs in the inspector's browser; the inspector is first shown the purpose and may decline. When the "
        "device gives no position the inspector may type it: source is then 'manual' and accuracy_m null. "
        "Fails with permission_denied (declined or blocked), timeout (no fix in time) or unavailable "
        "(no position source) when nothing was typed either."
    ),
    args=GetCurrentLocationArgs,
    result=GetCurrentLocationResult,
)


class AttachPhotoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purpose: str = Field(min_length=3, max_length=200, description="What the photo is for, shown to the inspector.")


class AttachPhotoResult(BaseModel):
    """Metadata of the photo the inspector picked. The file itself never leaves the device."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=255, description="File name as picked.")
    size: int = Field(ge=0, description="Size in bytes.")
    type: str = Field(max_length=100, description="MIME type, e.g. image/jpeg ('' when unknown).")
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the file's bytes, lowercase hex.")


ATTACH_PHOTO = ToolContract(
    name="attach_photo",
    title="Pick a photo",
    description=(
        "Ask the inspector to pick a photo on the device and return its metadata only: name, size, MIME "
        "type and SHA-256 (never the image). Runs in the inspector's browser. Fails with "
        "permission_denied when the inspector cancels, invalid_args when the file is not an image."
    ),
    args=AttachPhotoArgs,
    result=AttachPhotoResult,
)


class MeasureNoiseLevelArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    duration_s: int = Field(default=3, ge=1, le=30, description="How long to listen, in seconds.")


class MeasureNoiseLevelResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decibels: float = Field(ge=0, le=200, description="A-weighted sound level, dB(A).")


# Defined by the agent, not yet implemented by the browser: a call to it must come back as
# not_implemented at once, and the run must go on.
MEASURE_NOISE_LEVEL = ToolContract(
    name="measure_noise_level",
    title="Measure the noise level",
    description="Measure the ambient noise level at the site with the device's microphone. Runs in the browser.",
    args=MeasureNoiseLevelArgs,
    result=MeasureNoiseLevelResult,
)

BROWSER_TOOL_CONTRACTS: dict[str, ToolContract] = {
    c.name: c for c in (READ_LOCAL_DRAFT, SAVE_LOCAL_DRAFT, START_BLANK_DRAFT, GET_CURRENT_LOCATION, ATTACH_PHOTO)
}
"""The contracts Sitewalk's browser implements (`sitewalk.app.device_tools` registers each): the headless tools
a model is offered. A tool the browser would only refuse is never offered."""

TOOL_CONTRACTS: dict[str, ToolContract] = {**BROWSER_TOOL_CONTRACTS, MEASURE_NOISE_LEVEL.name: MEASURE_NOISE_LEVEL}
"""Every contract defined, the agent-only ones included (the browser answers a call to one not_implemented)."""
