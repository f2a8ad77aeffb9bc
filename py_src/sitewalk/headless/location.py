"""`get_current_location`: the device's position, after the inspector agreed to share it.

Three seams keep this pure: `ask(purpose)` shows the purpose and returns the inspector's answer
(the app's dialog in the browser), `locate(args)` asks the platform for one position fix
(Geolocation in the browser) and raises `PositionError` with the W3C code when there is none, and
`type_position(purpose, failure)` lets the inspector type the position instead (the same dialog, see
`manual_position`). If the inspector declines, `locate` is never called, so the browser never prompts.

When the platform gives no position (denied, none, no fix in time) the inspector may type it: the
result then says `source: "manual"` with no accuracy. Declining that too ends the call with the
platform's typed error, exactly as without manual entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime

from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import GetCurrentLocationArgs

from ..base import trace_hooks
from ..base.device_errors import PERMISSION_DENIED, POSITION_UNAVAILABLE, TIMEOUT, PositionError
from .manual_position import ManualPosition
from .registry import ToolFailed

__all__ = ["ALLOW", "DECLINE", "TYPE", "get_current_location"]

_CODES = {
    PERMISSION_DENIED: (ErrorCode.permission_denied, "the browser denied access to the position"),
    POSITION_UNAVAILABLE: (ErrorCode.unavailable, "the device has no position"),
    TIMEOUT: (ErrorCode.timeout, "no position fix in time"),
}


# The inspector's answer to the purpose prompt: share the device's position, decline, or type it.
ALLOW, DECLINE, TYPE = "allow", "decline", "type"

Ask = Callable[[str], Awaitable[bool | str]]  # True/False stand for ALLOW/DECLINE
Locate = Callable[[GetCurrentLocationArgs], Awaitable[Mapping[str, float]]]
TypePosition = Callable[[str, ToolFailed | None], Awaitable[ManualPosition | None]]
"""Offer manual entry for this purpose (after the platform's failure, or None when the inspector chose
to type); the validated position, or None when the inspector does not share one."""


def iso_from_epoch_ms(ms: float) -> str:
    moment = datetime.fromtimestamp(float(ms) / 1000.0, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _now_ms() -> float:
    return datetime.now(tz=UTC).timestamp() * 1000.0


def _choice(answer: bool | str) -> str:
    if answer is True:
        return ALLOW
    return answer if answer in (ALLOW, TYPE) else DECLINE


def _declined() -> ToolFailed:
    return ToolFailed(ErrorCode.permission_denied, "the inspector declined to share the position",
                      reason="declined_by_user")


def _platform_failure(exc: PositionError) -> ToolFailed:
    code, text = _CODES.get(exc.code, (ErrorCode.unavailable, "the position could not be read"))
    detail = f"{text} ({exc.message})" if exc.message else text
    return ToolFailed(code, detail, reason="geolocation", geolocation_code=exc.code)


def _typed(position: ManualPosition, now_ms: float) -> dict[str, object]:
    return {"latitude": position.latitude, "longitude": position.longitude, "accuracy_m": None,
            "timestamp": iso_from_epoch_ms(now_ms), "source": "manual"}


def get_current_location(ask: Ask, locate: Locate, type_position: TypePosition | None = None,
                         clock: Callable[[], float] = _now_ms):
    """Build the implementation: purpose prompt first, then one fix, else (with `type_position`) the
    inspector's typed position.

    `locate` returns {latitude, longitude, accuracy, timestamp} (timestamp in epoch milliseconds,
    as in GeolocationPosition); `clock` is epoch milliseconds, the time a typed position is taken.
    """

    async def implementation(args: GetCurrentLocationArgs) -> dict[str, object]:
        with trace_hooks.span("device.purpose_prompt", tool_name="get_current_location"):
            choice = _choice(await ask(args.purpose))
        if choice == TYPE and type_position is not None:
            typed = await type_position(args.purpose, None)
            if typed is None:
                raise _declined()
            return _typed(typed, clock())
        if choice != ALLOW:
            raise _declined()
        try:
            with trace_hooks.span("device.device_api", device_api="geolocation") as traced:
                try:
                    fix = await locate(args)
                except PositionError as exc:
                    traced.fail(_platform_failure(exc).code.value)  # a denied position: an error span, typed
                    raise
        except PositionError as exc:
            failure = _platform_failure(exc)
            typed = await type_position(args.purpose, failure) if type_position is not None else None
            if typed is None:
                raise failure from None
            return _typed(typed, clock())
        # A plain dict: the registry checks it against GetCurrentLocationResult (serialization_failed).
        return {
            "latitude": fix["latitude"],
            "longitude": fix["longitude"],
            "accuracy_m": fix["accuracy"],
            "timestamp": iso_from_epoch_ms(fix["timestamp"]),
            "source": "device",
        }

    return implementation
