"""The boot's phases and a Start pressed before Python, as spans of the first inspection of the page load.

The page times its boot in JavaScript (web/boot.js) and keeps a Start pressed while Python was not ready
(web/first_press.js); those times exist before any span could be made, so they are recorded afterwards from
the marks (`bridge.boot_marks`, epoch milliseconds), once, when the first inspection's thread is known: they
land in that inspection's trace, under its root.
"""

from __future__ import annotations

from collections.abc import Mapping

from sitewalk_shared.contracts.device_trace import BOOT_PHASES

from .recorder import Recorder

__all__ = ["PHASE_MARKS", "record_boot"]

# Each phase of the boot: the mark it starts at and the one it ends at (web/boot.js's names).
PHASE_MARKS: Mapping[str, tuple[str, str]] = {
    "python": ("start", "pyodideReady"),
    "packages": ("pyodideReady", "packagesLoaded"),
    "config": ("packagesLoaded", "configRead"),
    "app": ("appStarting", "appStarted"),
}
assert tuple(PHASE_MARKS) == BOOT_PHASES


def _ns(ms: float) -> int:
    return int(ms * 1_000_000)


def record_boot(recorder: Recorder, marks: Mapping[str, float]) -> int:
    """Record the boot (its phases as children) and an early Start press from `marks`; how many spans."""
    made = 0
    if "start" in marks and "appStarted" in marks:
        boot = recorder.record("device.boot", _ns(marks["start"]), _ns(marks["appStarted"]), first_run=True)
        made += 1
        for phase, (begin, end) in PHASE_MARKS.items():
            if begin in marks and end in marks:
                recorder.record(f"device.boot.{phase}", _ns(marks[begin]), _ns(marks[end]), parent=boot,
                                boot_phase=phase)
                made += 1
    if "pressedAt" in marks and "takenAt" in marks:
        recorder.record("device.start_press", _ns(marks["pressedAt"]), _ns(marks["takenAt"]), first_run=True)
        made += 1
    return made
