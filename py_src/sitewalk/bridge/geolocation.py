"""The Geolocation API as one asyncio future per fix.

It answers through Python callbacks, never by awaiting a JS promise: a promise rejected with a
`GeolocationPositionError` (not an `Error`) hangs Pyodide.
"""

from __future__ import annotations

import asyncio

import js
from pyodide.ffi import create_proxy

from ..base.device_errors import POSITION_UNAVAILABLE, PositionError
from .tasks import destroy_later
from .values import JsProxy, or_none

__all__ = ["geolocate"]


def geolocate(timeout_ms: int, high_accuracy: bool = False) -> asyncio.Future[dict[str, float]]:
    """One position fix: {latitude, longitude, accuracy, timestamp}, or PositionError(code)."""
    future: asyncio.Future[dict[str, float]] = asyncio.get_event_loop().create_future()
    geolocation = or_none(getattr(js.navigator, "geolocation", None))
    if geolocation is None:
        future.set_exception(PositionError(POSITION_UNAVAILABLE, "this browser has no Geolocation"))
        return future
    proxies: list[object] = []

    def done() -> None:
        destroy_later(proxies)
        proxies.clear()

    def success(position: JsProxy) -> None:
        try:
            if not future.done():
                coords = position.coords
                future.set_result({"latitude": float(coords.latitude), "longitude": float(coords.longitude),
                                   "accuracy": float(coords.accuracy), "timestamp": float(position.timestamp)})
        finally:
            done()

    def failure(error: JsProxy) -> None:
        try:
            if not future.done():
                future.set_exception(PositionError(int(error.code), str(getattr(error, "message", "") or "")))
        finally:
            done()

    proxies.extend([create_proxy(success), create_proxy(failure)])
    options = js.Object.new()
    options.timeout = int(timeout_ms)
    options.enableHighAccuracy = bool(high_accuracy)
    options.maximumAge = 0
    try:
        geolocation.getCurrentPosition(proxies[0], proxies[1], options)
    except Exception as exc:  # e.g. blocked by a permissions policy
        done()
        future.set_exception(PositionError(POSITION_UNAVAILABLE, str(exc)))
    return future
