"""ScreenFeed without a server: inline patch lines, then the server's copy of the screen."""

import json

from sitewalk.screen_feed import ScreenFeed
from sitewalk.streaming import MessageText

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
    message = MessageText(message_id)
    for piece in pieces:
        message.parts.append(piece)
        feed.text(message)
    message.done = True
    feed.text(message)


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
        message = MessageText("m2")
        lines = [f'{{"op":"replace","path":"/elements/card/props/title","value":"Title {k}"}}\n' for k in range(20)]
        started = time.monotonic()
        for line in lines:  # twenty edits at once
            message.parts.append(line)
            feed.text(message)
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
    from sitewalk.streaming import RunAssembler

    feed, view = feed_with_card()
    spec = {"root": "g", "elements": {"g": {"type": "Gauge", "props": {"title": "Noise", "value": 71}}}}
    assembler = RunAssembler()
    fragment = {"index": 0, "id": "c9", "name": "render_ui", "args": json.dumps(spec)}
    for change in assembler.feed([{"type": "AIMessageChunk", "id": "m3", "content": "",
                                   "tool_call_chunks": [fragment], "chunk_position": "last"}, {}]):
        if not isinstance(change, MessageText):
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
    message = MessageText("m2")
    message.parts.append("Walked the site with you.\n" + lines[0])
    feed.text(message)
    first = feed.live.shown
    assert first["elements"]["card"]["props"]["findings"] == ["Cracked kerb", "Handrail secure: yes"]
    message.parts.append(lines[1])
    feed.text(message)
    assert first["elements"]["card"]["props"]["findings"] == ["Cracked kerb", "Handrail secure: yes"]  # kept
    assert view.screens[-1]["elements"]["card"]["props"]["findings"] == [
        "Cracked kerb", "Handrail secure: yes", "Corroded bolts: 3"]
    message.done = True
    feed.text(message)
    server = json.loads(json.dumps(view.screens[-1]))
    feed.server_spec({**server, "identity": {"message_id": "m2", "tool_call_id": "m2:inline_spec", "revision": 2}})
    assert view.screens[-1]["elements"]["card"]["props"]["findings"][-1] == "Corroded bolts: 3"
