"""Parallel tool calls assembled from interleaved 20-byte fragments, against one parse of their arguments.

Run: .venv/bin/python -m pytest tests/bench/test_call_assembly_bench.py -s

At 10, 25 and 50 parallel calls with 2 KB of arguments each, fragments interleaved round-robin (call
0's fragment, call 1's, ...), as `messages-tuple` chunks of ONE message (the run stream). Assembly
(feeding every event, then one `take`, as the screen's frame does, which assembles them and parses
each call once at the message's end) is timed against `json.loads` of each final argument string, in
the same run. A constant ratio across sizes means assembly stays linear in the stream. (The event
protocol's reader, used by no product code, is gone: issue 28.)

Fed as the session feeds: one `reader.feed(part)` an event, with the `StreamPart` the client made of it
(`feed` is the pending list's own append since issue 28's bench target). The second line of each size
feeds through a Python function an event instead, as `feed(event, data)` was before: the difference is
what that call cost.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from sitewalk.agentserver.client import StreamPart
from sitewalk.calls.run_stream import RunStreamCalls

FRAGMENT = 20
ARGS_BYTES = 2048
SIZES = (10, 25, 50)
RUNS = 15  # best of: the machine is shared, the minimum is the least disturbed run


def _args_text(i: int) -> str:
    """A 2 KB JSON object (a few fields and one long note), exactly ARGS_BYTES long."""
    head = json.dumps({"inspection_id": f"inspection-{i}", "risk": "high", "note": ""}, separators=(",", ":"))
    text = head[:-2] + "x" * (ARGS_BYTES - len(head)) + '"}'
    assert len(text) == ARGS_BYTES
    return text


def _fragments(n: int) -> list[list[str]]:
    return [[t[k:k + FRAGMENT] for k in range(0, len(t), FRAGMENT)] for t in (_args_text(i) for i in range(n))]


def _interleaved(n: int) -> list[tuple[int, str, bool]]:
    """(call index, fragment, first of its call) in round-robin order."""
    per_call = _fragments(n)
    out: list[tuple[int, str, bool]] = []
    for k in range(max(len(f) for f in per_call)):
        out.extend((i, frags[k], k == 0) for i, frags in enumerate(per_call) if k < len(frags))
    return out


def _run_stream_events(n: int) -> list[StreamPart]:
    """The events as the client hands them to the session (parsed `StreamPart`s, as the SSE reader makes them)."""
    events: list[StreamPart] = []
    for i, piece, first in _interleaved(n):
        fragment = {"index": i, "args": piece, "id": f"call_{i}" if first else None,
                    "name": "create_work_order" if first else None, "type": "tool_call_chunk"}
        events.append(StreamPart("messages", [{"type": "AIMessageChunk", "id": "m1", "content": "",
                                               "tool_call_chunks": [fragment], "chunk_position": None}, {}]))
    events.append(StreamPart("messages", [{"type": "AIMessageChunk", "id": "m1", "content": "", "tool_call_chunks": [],
                                           "chunk_position": "last"}, {}]))
    return events


def _best_of(runs: int, fn: Callable[[], object]) -> float:
    """The best of `runs` timings, the garbage collector paused as `timeit` does (its passes over the
    prebuilt events would be charged to whichever size happens to trigger them)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
    finally:
        gc.enable()
    return best


def _parse_all(finals: list[str]) -> list[Any]:
    return [json.loads(t) for t in finals]


def _assemble_run_stream(events: list[StreamPart]) -> RunStreamCalls:
    reader = RunStreamCalls()
    for part in events:
        reader.feed(part)  # as the session feeds: one call an event
    reader.take()  # one frame's read: everything fed is assembled, the ended message's calls parsed
    return reader


def _assemble_fed_by_a_call(events: list[StreamPart]) -> RunStreamCalls:
    reader = RunStreamCalls()
    keep = reader.feed

    def feed(part: StreamPart) -> None:  # a Python call an event, as the method `feed(event, data)` was
        keep(part)

    for part in events:
        feed(part)
    reader.take()
    return reader


def test_bench_parallel_call_assembly_is_linear() -> None:
    print(f"\nparallel calls, {ARGS_BYTES} B of arguments each, {FRAGMENT}-byte fragments interleaved")
    ratios: dict[str, list[float]] = {"run stream": [], "fed by a call": []}
    for n in SIZES:
        finals = [_args_text(i) for i in range(n)]
        expected = [json.loads(t) for t in finals]
        baseline = _best_of(RUNS, partial(_parse_all, finals))
        run_events = _run_stream_events(n)
        got = _assemble_run_stream(run_events).assembler
        assert [got.calls[((), f"call_{i}")].args for i in range(n)] == expected
        for label, timing in (("run stream", _best_of(RUNS, partial(_assemble_run_stream, run_events))),
                              ("fed by a call", _best_of(RUNS, partial(_assemble_fed_by_a_call, run_events)))):
            ratios[label].append(timing / baseline)
            print(f"  {n:>2} calls ({n * ARGS_BYTES // 1024} KB, {len(run_events)} fragments) {label:>14}: "
                  f"assembly {timing * 1e3:7.2f} ms, json.loads of the finals {baseline * 1e3:6.3f} ms, "
                  f"ratio {timing / baseline:6.1f}x, {timing / len(run_events) * 1e6:5.2f} us/fragment")
    for label, values in ratios.items():
        print(f"  {label}: ratio at 50 calls / ratio at 10 calls = {values[-1] / values[0]:.2f} (linear = 1.0); "
              f"at 50 calls {values[-1]:.1f}x (target: at most 10x, issue 28)")
