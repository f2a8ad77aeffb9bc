"""The browser side of the example headless tool: its implementation, registered in a registry.

In the product the implementation goes in `py_src/sitewalk/headless/` (pure: the device is passed in),
the call of `navigator.getBattery()` in `py_src/sitewalk/bridge/` (the one package that touches `js`),
and the registration in `py_src/sitewalk/app/device_tools.py`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sitewalk.headless import HeadlessToolRegistry, ToolFailed
from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

from .battery_contract import READ_BATTERY_LEVEL, ReadBatteryLevelArgs, ReadBatteryLevelResult

# What navigator.getBattery() says ({"level": 0.0-1.0, "charging": bool}), or None without that API.
Battery = Callable[[], Awaitable[dict[str, Any] | None]]


def read_battery_level(battery: Battery):  # the registry checks what its implementation returns
    async def implementation(args: ReadBatteryLevelArgs) -> ReadBatteryLevelResult:
        status = await battery()
        if status is None:
            raise ToolFailed(ErrorCode.unavailable, "this browser does not report the battery level")
        return ReadBatteryLevelResult(percent=round(status["level"] * 100), charging=bool(status["charging"]))

    return implementation


def battery_registry(battery: Battery) -> HeadlessToolRegistry:
    """The browser's registry with Sitewalk's contracts and `read_battery_level` implemented."""
    registry = HeadlessToolRegistry({**TOOL_CONTRACTS, READ_BATTERY_LEVEL.name: READ_BATTERY_LEVEL})
    registry.register(READ_BATTERY_LEVEL.name, read_battery_level(battery))
    return registry
