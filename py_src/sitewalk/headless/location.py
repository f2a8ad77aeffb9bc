"""`get_current_location`: the device's position, after the inspector agreed to share it.

Two seams keep this pure: `ask(purpose)` shows the purpose and returns the inspector's answer
(the app's dialog in the browser), and `locate(args)` asks the platform for one position fix
(Geolocation in the browser) and raises `PositionError` with the W3C code when there is none.
If the inspector declines, `locate` is never called, so the browser never prompts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..contracts.envelope import ErrorCode
from ..contracts.tools import GetCurrentLocationArgs
from .registry import ToolFailed

__all__ = ["PERMISSION_DENIED", "POSITION_UNAVAILABLE", "TIMEOUT", "PositionError", "get_current_location"]

# GeolocationPositionError codes
PERMISSION_DENIED, POSITION_UNAVAILABLE, TIMEOUT = 1, 2, 3

_CODES = {
    PERMISSION_DENIED: (ErrorCode.permission_denied, "the browser denied access to the position"),
    POSITION_UNAVAILABLE: (ErrorCode.unavailable, "the device has no position"),
    TIMEOUT: (ErrorCode.timeout, "no position fix in time"),
}


class PositionError(Exception):
    """The platform could not give a position; `code` is the GeolocationPositionError code."""

    def __init__(self, code: int, message: str = ""):
        super().__init__(message or f"geolocation error {code}")
        self.code = int(code)
        self.message = message


Ask = Callable[[str], Awaitable[bool]]
Locate = Callable[[GetCurrentLocationArgs], Awaitable[Mapping[str, Any]]]


def iso_from_epoch_ms(ms: float) -> str:
    moment = datetime.fromtimestamp(float(ms) / 1000.0, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def get_current_location(ask: Ask, locate: Locate):
    """Build the implementation: purpose prompt first, then one fix.

    `locate` returns {latitude, longitude, accuracy, timestamp} (timestamp in epoch milliseconds,
    as in GeolocationPosition).
    """

    async def implementation(args: GetCurrentLocationArgs) -> dict[str, Any]:
        if not await ask(args.purpose):
            raise ToolFailed(ErrorCode.permission_denied, "the inspector declined to share the position",
                             reason="declined_by_user")
        try:
            fix = await locate(args)
        except PositionError as exc:
            code, text = _CODES.get(exc.code, (ErrorCode.unavailable, "the position could not be read"))
            detail = f"{text} ({exc.message})" if exc.message else text
            raise ToolFailed(code, detail, reason="geolocation", geolocation_code=exc.code) from None
        # A plain dict: the registry checks it against GetCurrentLocationResult (serialization_failed).
        return {
            "latitude": fix["latitude"],
            "longitude": fix["longitude"],
            "accuracy_m": fix["accuracy"],
            "timestamp": iso_from_epoch_ms(fix["timestamp"]),
        }

    return implementation
