"""The contract of the example headless tool `read_battery_level`, shared by the agent and the browser.

In the product this goes in `py_src/sitewalk_shared/contracts/tools.py`, with the contract added to
`TOOL_CONTRACTS` (then `sitewalk_middleware()` and the browser's registry know it without being told).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sitewalk_shared.contracts.tools import ToolContract


class ReadBatteryLevelArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purpose: str = Field(min_length=3, max_length=200, description="Why the level is needed, shown to the inspector.")


class ReadBatteryLevelResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    percent: int = Field(ge=0, le=100, description="Charge left, in percent.")
    charging: bool = Field(description="Whether the device is charging.")


READ_BATTERY_LEVEL = ToolContract(
    name="read_battery_level",
    description=(
        "Read the device's battery level (percent, charging). Runs in the inspector's browser. "
        "Fails with unavailable when the browser does not report it."
    ),
    args=ReadBatteryLevelArgs,
    result=ReadBatteryLevelResult,
)
