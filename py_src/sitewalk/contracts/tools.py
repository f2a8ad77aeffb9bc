"""Headless tool contracts: name, description, argument and result models.

The agent server builds its tool schema from these models and the browser validates against
the same ones. `ToolContract.digest` is a hash of the contract, so both sides can tell when
they disagree.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = "sitewalk.headless/1"

INSPECTION_ID = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$", description="Inspection id, e.g. 'inspection-42'.")


class ReadLocalDraftArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID


class ReadLocalDraftResult(BaseModel):
    """An inspector's draft as kept on the device."""

    model_config = ConfigDict(extra="forbid")
    inspection_id: str = INSPECTION_ID
    site: str = Field(max_length=200, description="Site name or address.")
    inspector: str = Field(default="", max_length=120)
    findings: list[str] = Field(default_factory=list, max_length=50, description="Findings, one line each.")
    risk: str = Field(default="low", pattern="^(low|medium|high|critical)$")
    updated_at: Optional[str] = Field(default=None, max_length=40, description="ISO 8601 time of the last edit.")


@dataclass(frozen=True)
class ToolContract:
    name: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]

    @property
    def digest(self) -> str:
        """sha256 over the canonical JSON of name, description and both schemas (first 16 hex)."""
        body = {
            "name": self.name,
            "description": self.description,
            "args": self.args.model_json_schema(),
            "result": self.result.model_json_schema(),
        }
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


READ_LOCAL_DRAFT = ToolContract(
    name="read_local_draft",
    description=(
        "Read the inspector's draft for an inspection from the device. Runs in the inspector's "
        "browser. Fails with not_found when there is no draft, corrupt_data when it is unreadable."
    ),
    args=ReadLocalDraftArgs,
    result=ReadLocalDraftResult,
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
    description="Measure the ambient noise level at the site with the device's microphone. Runs in the browser.",
    args=MeasureNoiseLevelArgs,
    result=MeasureNoiseLevelResult,
)

TOOL_CONTRACTS: dict[str, ToolContract] = {c.name: c for c in (READ_LOCAL_DRAFT, MEASURE_NOISE_LEVEL)}
