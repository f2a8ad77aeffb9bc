"""ScreenFeed without a server: inline patch lines, then the server's copy of the screen."""

import json

from sitewalk.agentserver.client import StreamPart
from sitewalk.calls.view import TextView
from sitewalk.screen_feed import ScreenFeed

CARD = {"root": "card", "elements": {
    "card": {"type": "InspectionCard", "props": {"title": "Inspection 42", "site": "Pier 4"}, "children": ["risk"]},
    "risk": {"type": "RiskBadge", "props": {"level": "low"}, "children": []}}}
EDIT = '{"op":"replace","path":"/elements/risk/props/level","value":"high"}\n'


class ScreenView:
    def __init__(self):
        self.screens, self.issues, self.texts, self.fallbacks = [], [], {}, []

    def agent_text(self, message_id, text): self.texts[message_id] = text
    def screen(self, spec): self.screens.append(json.loads(json.dumps(spec)))

    def screen_issues(self, issues, fallback):
        self.issues.append(issues)
        self.fallbacks.append(fallback)


def feed_with_card():
    view = ScreenView()
    feed = ScreenFeed(view)
    feed.server_spec({**CARD, "identity": {"message_id": "m1", "tool_call_id": "c1", "revision": 1}})
    return feed, view


def stream_text(feed, message_id, pieces):
    for piece in pieces:
        feed.text(TextView(message_id, piece))
    feed.text(TextView(message_id, "", done=True))


def test_patch_lines_apply_to_the_screen_on_record_and_the_same_server_copy_is_not_redrawn():
    feed, view = feed_with_card()
    stream_text(feed, "m2", ["Raising the ", "risk.\n", EDIT[:20], EDIT[20:]])
    assert view.texts["m2"] == "Raising the risk.\n"
    assert [s["elements"]["risk"]["props"]["level"] for s in view.screens] == ["low", "high"]
    server = json.loads(json.dumps(view.screens[-1]))
    feed.server_spec({**server, "identity": {"message_id": "m2", "tool_call_id": "m2:inline_spec", "revision": 2}})
    assert len(view.screens) == 2 and feed.spec_identity["revision"] == 2


def test_when_the_server_built_another_screen_from_the_same_lines_its_copy_wins():
    feed, view = feed_with_card()
    stream_text(feed, "m2", ["Raising the risk.\n", EDIT])
    server = json.loads(json.dumps(CARD))  # e.g. the server applied them to another screen on record
    server["elements"]["risk"]["props"] = {"level": "critical", "label": "Risk: critical"}
    feed.server_spec({**server, "identity": {"message_id": "m2", "tool_call_id": "m2:inline_spec", "revision": 2}})
    assert view.screens[-1]["elements"]["risk"]["props"]["level"] == "critical"
    shown = len(view.screens)
    feed.server_spec({**server, "identity": {"message_id": "m2", "tool_call_id": "m2:inline_spec", "revision": 2}})
    assert len(view.screens) == shown  # the same copy again (a later values event): compared once


def test_a_reply_of_only_patch_lines_writes_no_empty_paragraph():
    feed, view = feed_with_card()
    stream_text(feed, "m2", [EDIT, "  "])
    assert "m2" not in view.texts and view.screens[-1]["elements"]["risk"]["props"]["level"] == "high"


def test_progress_is_pushed_at_most_once_a_frame_and_the_last_of_it_is_not_held_back():
    import asyncio
    import time

    from sitewalk.screen_feed import PUSH_INTERVAL_S

    async def go():
        feed, view = feed_with_card()
        lines = [f'{{"op":"replace","path":"/elements/card/props/title","value":"Title {k}"}}\n' for k in range(20)]
        started = time.monotonic()
        for line in lines:  # twenty edits at once
            feed.text(TextView("m2", line))
        frames = (time.monotonic() - started) / PUSH_INTERVAL_S
        pushed_at_once = len(view.screens)
        await asyncio.sleep(PUSH_INTERVAL_S * 3)  # the stream pauses: the trailing push comes anyway
        return pushed_at_once, frames, view.screens

    pushed_at_once, frames, screens = asyncio.run(go())
    assert pushed_at_once <= 2 + int(frames)  # the card, then at most one push a frame (not twenty)
    assert screens[-1]["elements"]["card"]["props"]["title"] == "Title 19"


def test_a_bad_inline_line_keeps_the_last_good_screen_and_gives_the_lines_text_as_a_fallback():
    feed, view = feed_with_card()
    bad = '{"op":"replace","path":"/elements/badge/props/label","value":"Risk: high"}\n'
    label = '{"op":"add","path":"/elements/risk/props/label","value":"Risk: high"}\n'
    stream_text(feed, "m2", ["Raising the risk.\n", EDIT, bad, label])
    assert view.screens[-1]["elements"]["risk"]["props"]["level"] == "low"  # the last good screen
    [issues] = view.issues
    assert [(i.code, i.element) for i in issues] == [("invalid_patch", "badge")]
    # every word the reply's lines sent, the bad one skipped: what the screen would have said
    assert view.fallbacks == [["InspectionCard: Inspection 42 · Pier 4", "RiskBadge: Risk: high · high"]]


def test_a_render_ui_spec_with_an_unknown_type_gives_its_own_text_as_the_fallback():
    from sitewalk.calls.run_stream import RunStreamCalls
    from sitewalk.calls.view import CallView

    feed, view = feed_with_card()
    spec = {"root": "g", "elements": {"g": {"type": "Gauge", "props": {"title": "Noise", "value": 71}}}}
    reader = RunStreamCalls()
    fragment = {"index": 0, "id": "c9", "name": "render_ui", "args": json.dumps(spec)}
    reader.feed(StreamPart("messages", [{"type": "AIMessageChunk", "id": "m3", "content": "",
                                         "tool_call_chunks": [fragment], "chunk_position": "last"}, {}]))
    for change in reader.take():
        if isinstance(change, CallView):
            feed.call(change)
    assert [i.code for i in view.issues[-1]] == ["unknown_type"]
    assert view.fallbacks[-1] == ["Gauge: Noise · 71"]
    assert view.screens[-1]["elements"]["card"]["props"]["site"] == "Pier 4"


def test_a_list_prop_grown_line_by_line_shows_each_line_and_what_was_shown_stays_as_it_was():
    """Two `add .../findings/-` lines in two chunks (the site walk's answers on a slow device, one push per
    line): the second must reach the view. The stream applies ops in place; were the shown screen to share
    the findings list with it, the second line would change what was shown already, and nothing would look
    changed any more: neither the feed nor the renderer would draw it (the CI failure)."""
    view = ScreenView()
    feed = ScreenFeed(view)
    card = json.loads(json.dumps(CARD))
    card["elements"]["card"]["props"]["findings"] = ["Cracked kerb"]
    feed.server_spec({**card, "identity": {"message_id": "m1", "tool_call_id": "c1", "revision": 1}})
    lines = [f'{{"op":"add","path":"/elements/card/props/findings/-","value":"{f}"}}\n'
             for f in ("Handrail secure: yes", "Corroded bolts: 3")]
    feed.text(TextView("m2", "Walked the site with you.\n" + lines[0]))
    first = feed.live.shown
    assert first["elements"]["card"]["props"]["findings"] == ["Cracked kerb", "Handrail secure: yes"]
    feed.text(TextView("m2", lines[1]))
    assert first["elements"]["card"]["props"]["findings"] == ["Cracked kerb", "Handrail secure: yes"]  # kept
    assert view.screens[-1]["elements"]["card"]["props"]["findings"] == [
        "Cracked kerb", "Handrail secure: yes", "Corroded bolts: 3"]
    feed.text(TextView("m2", "", done=True))
    server = json.loads(json.dumps(view.screens[-1]))
    feed.server_spec({**server, "identity": {"message_id": "m2", "tool_call_id": "m2:inline_spec", "revision": 2}})
    assert view.screens[-1]["elements"]["card"]["props"]["findings"][-1] == "Corroded bolts: 3"


def test_a_render_ui_calls_fragments_draw_the_screen_before_its_message_ends():
    """A frame's fragments of a render_ui call reach the feed as one change; the screen is drawn from them
    while the message is still open (nothing validated yet)."""
    from sitewalk.calls.run_stream import RunStreamCalls

    view = ScreenView()
    feed = ScreenFeed(view)
    text = json.dumps(CARD)
    reader = RunStreamCalls()
    for k in range(0, len(text), 40):
        fragment = {"index": 0, "args": text[k:k + 40], **({"id": "c5", "name": "render_ui"} if k == 0 else {})}
        reader.feed(StreamPart("messages", [{"type": "AIMessageChunk", "id": "m5", "content": "",
                                             "tool_call_chunks": [fragment]}, {}]))
    [change] = reader.take()
    assert not change.finished and change.delta == text
    feed.call(change)
    assert view.screens == [CARD] and view.issues == []
