"""SSE decoder cost against stream length (a benchmark: prints figures, asserts nothing on time).

Run: python -m pytest tests/bench/test_sse_bench.py -s
"""

from __future__ import annotations

import time

from sitewalk.agentserver.sse import SSEDecoder


def _best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _one_char_at_a_time(n: int) -> float:
    payload = "data: " + "x" * n + "\r\n\r\n"

    def run():
        decoder = SSEDecoder()
        for ch in payload:
            decoder.feed(ch)

    return _best_of(3, run)


def test_bench_sse_decoder_is_linear():
    small, large = _one_char_at_a_time(25_000), _one_char_at_a_time(100_000)
    many = "".join(f"data: {i}\n\n" for i in range(20_000))
    one_chunk = _best_of(3, lambda: SSEDecoder().feed(many))
    print(f"\nSSE one char at a time: 25 KB {small * 1e3:.1f} ms, 100 KB {large * 1e3:.1f} ms, "
          f"ratio {large / small:.2f} (linear = 4.0)")
    print(f"SSE 20,000 events in one chunk: {one_chunk * 1e3:.1f} ms")
