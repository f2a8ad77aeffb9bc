"""What a span made on the device may say: its names, its attribute keys and values, its limits (issue 27).

One list, read by both sides: the browser's recorder keeps only these keys (`sitewalk.tracing`), and the
agent server refuses a span that carries anything else (`sitewalk_agent.tracing.device_spans`). A key is
allowed for what it describes (ids, a typed error code, a size, a count, a state out of a short list),
never for a tool's arguments or result or any field the site policy keeps on the device: none of those has
a key here, so none can reach a trace, whatever a caller passes.

`span_issues` checks one `DeviceSpan` dict and answers its problems as machine codes (empty when it is
fine), as the screen spec's validation does: plain functions and regular expressions, no pydantic, so the
recorder that imports it stays small in the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

__all__ = [
    "ATTRIBUTES",
    "BOOT_PHASES",
    "DECISIONS",
    "MAX_ATTRIBUTES",
    "MAX_SPANS_PER_BATCH",
    "PERMISSION_STATES",
    "ROUTE",
    "SPAN_NAMES",
    "allowed_value",
    "span_issues",
]

ROUTE = "/sitewalk/device-spans"  # where the page posts its spans on the agent server
MAX_SPANS_PER_BATCH = 200
MAX_ATTRIBUTES = 16
MAX_INT = 2**53  # what a JSON number keeps exactly on both sides

_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")  # thread, checkpoint, tool-call and interrupt ids
_CODE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")  # a typed error or issue code, a tool or API name
_CODES = re.compile(r"^[a-z][a-z0-9_]{0,63}(,[a-z][a-z0-9_]{0,63}){0,19}$")  # up to 20 codes, comma-joined
_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_HEX16 = re.compile(r"^[0-9a-f]{16}$")

BOOT_PHASES = ("python", "packages", "config", "app")
PERMISSION_STATES = ("granted", "denied", "prompt", "unknown")
DECISIONS = ("approve", "edit", "reject", "respond")

SPAN_NAMES = frozenset({
    "device.boot", *(f"device.boot.{phase}" for phase in BOOT_PHASES),
    "device.start_press",
    "device.headless_tool", "device.purpose_prompt", "device.permission", "device.device_api",
    "device.screen", "device.review_decision",
})


def _text(pattern: re.Pattern[str]) -> Callable[[object], bool]:
    return lambda value: isinstance(value, str) and pattern.match(value) is not None


def _one_of(choices: tuple[str, ...]) -> Callable[[object], bool]:
    return lambda value: value in choices


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_INT


def _flag(value: object) -> bool:
    return isinstance(value, bool)


# Each allowed key and the check its value must pass: nothing else may be an attribute of a device span.
ATTRIBUTES: Mapping[str, Callable[[object], bool]] = {
    "sitewalk.thread_id": _text(_ID),
    "sitewalk.checkpoint_id": _text(_ID),
    "sitewalk.tool_call_id": _text(_ID),
    "sitewalk.interrupt_id": _text(_ID),
    "sitewalk.spec_version": _count,
    "sitewalk.tool_name": _text(_CODE),
    "sitewalk.device_api": _text(_CODE),
    "sitewalk.error_code": _text(_CODE),
    "sitewalk.result_bytes": _count,
    "sitewalk.permission_state": _one_of(PERMISSION_STATES),
    "sitewalk.boot_phase": _one_of(BOOT_PHASES),
    "sitewalk.first_run": _flag,
    "sitewalk.issue_count": _count,
    "sitewalk.issue_codes": _text(_CODES),
    "sitewalk.element_count": _count,
    "sitewalk.decision": _one_of(DECISIONS),
    "sitewalk.streamed": _flag,
}


def allowed_value(key: str, value: object) -> bool:
    """Whether `key` is an allowed attribute and `value` fits it."""
    check = ATTRIBUTES.get(key)
    return check is not None and check(value)


def span_issues(span: object) -> list[str]:
    """The problems of one device span, as codes (`name`, `trace_id`, `attribute:<key>`...); empty when fine."""
    if not isinstance(span, dict):
        return ["not_an_object"]
    issues = [field for field, ok in _field_checks(span) if not ok]
    attributes = span.get("attributes")
    if not isinstance(attributes, dict) or len(attributes) > MAX_ATTRIBUTES:
        return [*issues, "attributes"]
    return issues + [f"attribute:{str(key)[:64]}" for key, value in attributes.items()
                     if not allowed_value(str(key), value)]


def _field_checks(span: Mapping[str, object]) -> list[tuple[str, bool]]:
    start, end = span.get("start_unix_nano"), span.get("end_unix_nano")
    times_ok = _nanos(start) and _nanos(end) and int(start) <= int(end)  # type: ignore[call-overload]
    status = span.get("status")
    error_code = span.get("error_code")
    return [
        ("name", span.get("name") in SPAN_NAMES),
        ("trace_id", _text(_HEX32)(span.get("trace_id")) and span.get("trace_id") != "0" * 32),
        ("span_id", _text(_HEX16)(span.get("span_id")) and span.get("span_id") != "0" * 16),
        ("parent_span_id", _text(_HEX16)(span.get("parent_span_id")) and span.get("parent_span_id") != "0" * 16),
        ("times", bool(times_ok)),
        ("status", status in ("ok", "error")),
        ("error_code", error_code is None or (status == "error" and _text(_CODE)(error_code))),
        ("fields", set(span) <= _FIELDS),
    ]


_FIELDS = frozenset({"name", "trace_id", "span_id", "parent_span_id", "start_unix_nano", "end_unix_nano",
                     "attributes", "status", "error_code"})


def _nanos(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63
