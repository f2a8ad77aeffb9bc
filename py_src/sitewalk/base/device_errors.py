"""The errors the device's platform APIs report, raised by the bridge and handled by the tools above it.

Pure types, so that `sitewalk.bridge` (which raises them) need not import `sitewalk.headless` (which
turns them into typed tool failures).
"""

from __future__ import annotations

from sitewalk_shared.errors import SitewalkError

__all__ = ["PERMISSION_DENIED", "POSITION_UNAVAILABLE", "TIMEOUT", "PositionError", "StorageError"]

# GeolocationPositionError codes
PERMISSION_DENIED, POSITION_UNAVAILABLE, TIMEOUT = 1, 2, 3


class PositionError(SitewalkError):
    """The platform could not give a position; `code` is the GeolocationPositionError code."""

    def __init__(self, code: int, message: str = ""):
        super().__init__(message or f"geolocation error {code}")
        self.code = int(code)
        self.message = message


class StorageError(SitewalkError, OSError):
    """The device's store refused a request (quota, private mode, a blocked upgrade...)."""
