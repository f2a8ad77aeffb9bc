"""The W3C traceparent reader and writer shared by the agent and the browser (issue 27)."""

from __future__ import annotations

import pytest

from sitewalk_shared.contracts.trace_wire import SpanParent, format_traceparent, inspection_root, parse_traceparent

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


def test_an_inspection_always_names_the_same_trace_and_a_fork_names_its_own():
    root = inspection_root("thread-1")
    assert root == inspection_root("thread-1")
    assert parse_traceparent(format_traceparent(root.trace_id, root.span_id)) == root
    assert inspection_root("thread-2").trace_id != root.trace_id
    fork = inspection_root("thread-1", forked_from="cp-7")
    assert fork.trace_id not in {root.trace_id, inspection_root("thread-1", forked_from="cp-8").trace_id}
