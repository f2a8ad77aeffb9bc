"""Benchmark (CPython): a spec streamed in 20-byte fragments vs one parse of the final JSON.

Prints, at 25, 50 and 100 KB, the incremental assembly time (SpecStream: parser plus element
tracking), one json.loads of the final text, their ratio, and the characters scanned per
character of input (the parser's work counter: tokenized, or, inside the containers SpecStream
defers, tested for a closing bracket, skimmed and decoded). Two ways: every fragment parsed as it
comes (`feed`), and the fragments taken once per KB (`append`, then `take` every 50 fragments), as
the screen does once a frame (`ui.live.LiveScreen`). Target (DESIGN): <= 3x and the same ratio at
every size (linear). Only the work count is asserted; times are reported.
"""

import json
import statistics
import time

import pytest

from sitewalk.ui.spec_stream import SpecStream

pytestmark = pytest.mark.bench
FRAGMENT = 20


def spec_of(n_bytes):
    elements = {"root": {"type": "Stack", "props": {"gap": "md"}, "children": []}}
    i = 0
    while len(json.dumps(elements)) < n_bytes:
        key = f"f{i}"
        elements[key] = {"type": "Field", "props": {"label": f"Finding {i}", "value": "corrosion on the rail, " * 2}}
        elements["root"]["children"].append(key)
        i += 1
    return {"root": "root", "elements": elements}


def _median_time(fn, runs=5):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def test_streamed_spec_assembly_against_one_parse():
    for label, take_every in (("per fragment", 1), ("taken per KB", 50)):
        rows = []
        for size in (25_000, 50_000, 100_000):
            text = json.dumps(spec_of(size))
            pieces = [text[i:i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]
            scanned = []

            def stream(pieces=pieces, scanned=scanned, take_every=take_every):
                s = SpecStream()
                for k, piece in enumerate(pieces, 1):
                    s.append(piece)
                    if k % take_every == 0:
                        s.take()
                s.close()
                scanned.append(s.chars_scanned)

            t_stream = _median_time(stream)
            t_parse = _median_time(lambda text=text: json.loads(text))
            rows.append((size, t_stream, t_parse, scanned[-1] / len(text)))
        print()
        for size, t_stream, t_parse, per_char in rows:
            print(f"ui-stream {size // 1000:>3} KB in {FRAGMENT}-byte fragments, {label}: {t_stream * 1e3:7.2f} ms, "
                  f"one json.loads {t_parse * 1e3:6.3f} ms, ratio {t_stream / t_parse:5.1f}x, "
                  f"{per_char:.2f} chars scanned per char")
        per_chars = [r[3] for r in rows]
        assert max(per_chars) - min(per_chars) < 0.05  # linear work


def test_an_inline_patch_stream_against_one_parse_of_its_lines():
    """The same screens written as JSON-patch lines in the agent's text (split from prose, applied
    with jsonpatch), in 20-byte fragments, against json.loads of every line once."""
    from sitewalk_agent.demo.scripted_model import inline_text, patch_lines
    from sitewalk_shared.ui_spec.inline import InlineSplitter
    from sitewalk_shared.ui_spec.patch_stream import PatchStream

    rows = []
    for size in (25_000, 50_000, 100_000):
        text = inline_text("Here is the screen.", patch_lines(spec_of(size)))
        pieces = [text[i:i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]
        lines = text.splitlines()[1:]

        def stream(pieces=pieces):
            splitter, patches = InlineSplitter(), PatchStream()
            for piece in pieces:
                patches.feed(splitter.feed(piece)[1])
            patches.close()
            assert not patches.issues

        t_stream = _median_time(stream)
        t_parse = _median_time(lambda lines=lines: [json.loads(line) for line in lines])
        rows.append((size, t_stream, t_parse))
    print()
    for size, t_stream, t_parse in rows:
        print(f"ui-patch-stream {size // 1000:>3} KB in {FRAGMENT}-byte fragments: {t_stream * 1e3:7.2f} ms, "
              f"json.loads of each line {t_parse * 1e3:6.3f} ms, ratio {t_stream / t_parse:5.1f}x")


def test_the_whole_live_screen_path_against_one_parse():
    """SpecStream plus the progressive filter (LiveScreen), the screen read once per KB streamed,
    as a renderer reading once a frame would. Once the new root can render, each read walks the
    spec so far (here the root waits for all its children); element checks are remembered."""
    from sitewalk.ui.current import SpecCandidate
    from sitewalk.ui.live import LiveScreen

    rows = []
    for size in (25_000, 50_000, 100_000):
        spec = spec_of(size)
        text = json.dumps(spec)
        pieces = [text[i:i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]

        def stream(pieces=pieces, spec=spec):
            live = LiveScreen()
            candidate = SpecCandidate(0, 0, "render_ui", "call_1", 0, message_id="msg_1")
            for k, piece in enumerate(pieces):
                live.fragment(candidate, piece)
                if k % 50 == 0:
                    _ = live.shown  # the read a renderer makes once a frame
            assert live.complete(candidate, spec) == []

        t_stream = _median_time(stream)
        t_parse = _median_time(lambda text=text: json.loads(text))
        rows.append((size, t_stream, t_parse))
    print()
    for size, t_stream, t_parse in rows:
        print(f"ui-live {size // 1000:>3} KB in {FRAGMENT}-byte fragments, read once per KB: {t_stream * 1e3:7.2f} ms, "
              f"one json.loads {t_parse * 1e3:6.3f} ms, ratio {t_stream / t_parse:5.1f}x")
