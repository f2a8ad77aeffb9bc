"""The W3C traceparent reader and writer shared by the agent and the browser (issue 27)."""

from __future__ import annotations

import pytest

from sitewalk_shared.contracts.trace_wire import SpanParent, format_traceparent, parse_traceparent

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


def test_a_written_traceparent_reads_back_as_the_same_parent():
    assert parse_traceparent(format_traceparent(TRACE, SPAN)) == SpanParent(TRACE, SPAN, sampled=True)
    assert parse_traceparent(format_traceparent(TRACE, SPAN, sampled=False)) == SpanParent(TRACE, SPAN, False)


def test_the_w3c_example_reads():
    assert parse_traceparent(f"00-{TRACE}-{SPAN}-01") == SpanParent(TRACE, SPAN, True)


@pytest.mark.parametrize("value", [
    None, 7, "", "garbage",
    f"01-{TRACE}-{SPAN}-01",  # an unknown version
    f"00-{TRACE.upper()}-{SPAN}-01",  # hex must be lowercase
    f"00-{'0' * 32}-{SPAN}-01",  # all-zero trace id
    f"00-{TRACE}-{'0' * 16}-01",  # all-zero span id
    f"00-{TRACE[:-1]}-{SPAN}-01",
    f"00-{TRACE}-{SPAN}-1",
])
def test_an_invalid_traceparent_is_none(value):
    assert parse_traceparent(value) is None
