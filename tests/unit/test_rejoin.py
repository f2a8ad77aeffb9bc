"""A run's stream across dropped connections: rejoined where it broke, nothing shown twice.

The deduper is fed id patterns recorded from the in-memory server (several events share an id
within a millisecond); the live tests cut the real connection to a real `langgraph dev` with a
transport that drops after some chunks.
"""

from __future__ import annotations

import json
import uuid

from test_session_live import drive_session

from sitewalk.agentserver.client import StreamPart
from sitewalk.agentserver.rejoin import EventDeduper
from sitewalk.agentserver.transport import HttpxTransport
from sitewalk.base.server_errors import ServerUnreachable
from sitewalk.headless import draft_key

IDS = ["1796243079850-0", "1796243079851-0", "1796243079851-0", "1796243079852-0", "1796243079852-0",
       "1796243079852-0", "1796243079853-0"]


def parts(ids=IDS):
    return [StreamPart("messages", {"n": k}, event_id) for k, event_id in enumerate(ids)]


def test_a_replay_from_the_rejoin_point_passes_on_only_the_new_events():
    everything = parts()
    for cut in range(1, len(everything) + 1):
        dedupe = EventDeduper()
        shown = [p for p in everything[:cut] if dedupe.fresh(p)]
        # the server answers a Last-Event-ID with every event of a later id (as measured)
        start = dedupe.rejoin_from
        replay = [p for p in everything if start is None or tuple(map(int, p.id.split("-"))) >
                  tuple(map(int, start.split("-")))]
        shown += [p for p in replay if dedupe.fresh(p)]
        assert shown == everything, cut


def test_the_rejoin_point_is_before_the_newest_id_because_a_rejoin_skips_every_event_with_that_id():
    dedupe = EventDeduper()
    for p in parts()[:5]:
        dedupe.fresh(p)
    assert dedupe.rejoin_from == "1796243079851-0"


def test_aegra_ids_are_ordered_by_their_sequence_and_a_replay_passes_on_only_the_new_events():
    run_id = "1f0c9a2e-7d41-6b3a-9c55-0a1b2c3d4e5f"  # a UUID: its hyphens are not an <ms>-<seq> id
    everything = [StreamPart("messages", {"same": "fragment"}, f"{run_id}_event_{k}") for k in range(1, 12)]
    for cut in range(1, len(everything) + 1):
        dedupe = EventDeduper()
        shown = [p for p in everything[:cut] if dedupe.fresh(p)]
        start = int(dedupe.rejoin_from.rsplit("_", 1)[1]) if dedupe.rejoin_from else 0
        replay = everything[start:]  # Aegra answers a Last-Event-ID with every later event
        shown += [p for p in replay if dedupe.fresh(p)]
        assert shown == everything, cut  # equal fragments with their own ids both pass, once each


def test_events_without_ids_always_pass():
    dedupe = EventDeduper()
    assert all(dedupe.fresh(StreamPart("values", {"k": 1})) for _ in range(2))


class DroppingTransport(HttpxTransport):
    """The real HTTP transport, except that the first run stream it opens is cut after `after` chunks
    (`after=0`: the request reaches the server, the answer never arrives)."""

    def __init__(self, after: int, when=lambda body: True):
        super().__init__()
        self.after, self.when, self.dropped = after, when, 0
        self.joins: list[str | None] = []  # the Last-Event-ID of each rejoin

    async def stream(self, method, url, json=None, headers=None):
        if method == "GET" and url.endswith("/stream"):
            self.joins.append((headers or {}).get("Last-Event-ID"))
        cut = not self.dropped and method == "POST" and url.endswith("/runs/stream") and self.when(json)
        k = 0
        async for text in super().stream(method, url, json=json, headers=headers):
            if cut and k == self.after:
                self.dropped += 1
                raise ServerUnreachable(url, "connection reset (test)")
            k += 1
            yield text
        if cut and k <= self.after:  # the stream ended before the cut: cut it at its end
            self.dropped += 1
            raise ServerUnreachable(url, "connection reset (test)")


def run_with(agent_server, transport, inspection_id, note, then=None):
    """An inspection with a draft on the device, through `transport`."""
    store = {draft_key(inspection_id): json.dumps({"site": "Pier 4", "inspector": "Ana", "risk": "high"})}
    return drive_session(agent_server, store, inspection_id, note, transport=transport, then=then)


def test_a_connection_cut_in_the_middle_of_a_streamed_screen_is_rejoined_and_nothing_shows_twice(agent_server):
    transport = DroppingTransport(after=12, when=lambda body: body.get("command") is not None)
    session, view, _ = run_with(agent_server, transport, "inspection-91", "script: patch-ui")
    assert transport.dropped == 1 and len(transport.joins) == 1
    assert any(e[0] == "status" and "Connection lost" in e[1] for e in view.events)
    assert "Here is the screen for inspection-91." in [t.strip() for t in view.texts.values()]  # once, not twice
    assert len(view.screens[-1]["elements"]) == 9 and view.issues == []
    sizes = [len(s["elements"]) for s in view.screens]
    assert sizes == sorted(sizes), sizes  # no step back, no screen rebuilt from a replay


def test_an_answer_whose_reply_never_came_is_not_sent_twice_and_its_run_is_shown(agent_server):
    transport = DroppingTransport(after=0, when=lambda body: body.get("command") is not None)
    session, view, _ = run_with(agent_server, transport, "inspection-92", "script: confirm")
    assert transport.dropped == 1
    assert view.states("read_local_draft").count("running") == 1  # the tool ran once
    assert len(view.screens[-1]["elements"]) == 9  # the resumed run's screen, joined from its start
    assert session.spec_identity and session.spec_identity["tool_call_id"].startswith("call_")


class OfflineOnce(HttpxTransport):
    """The real transport, except that the first request matching `when` fails as if offline
    (it never reaches the server)."""

    def __init__(self, when):
        super().__init__()
        self.when, self.failed = when, 0

    async def request(self, method, url, json=None, headers=None):
        if not self.failed and self.when(method, url):
            self.failed += 1
            raise ServerUnreachable(url, "offline (test)")
        return await super().request(method, url, json=json, headers=headers)


def act_with(agent_server, transport, inspection_id):
    """The confirm scenario, then the inspector presses its button (with `transport.armed` set)."""
    async def press(session, client):
        transport.armed = True
        result = await session.act("confirm", "create_work_order")
        return result, (await client.threads.get_state(session.thread_id))["values"]

    _, view, (result, values) = run_with(agent_server, transport, inspection_id, "script: confirm", press)
    return result, values, view


def test_a_confirm_pressed_offline_waits_for_the_network_and_is_sent_once(agent_server):
    transport = OfflineOnce(lambda method, url: getattr(transport, "armed", False))
    result, values, view = act_with(agent_server, transport, f"inspection-94-{uuid.uuid4().hex[:6]}")
    assert transport.failed == 1
    assert any(e[0] == "status" and "waiting for the network" in e[1] for e in view.events)
    assert result["status"] == "done" and len(values["ui_actions"]) == 1


def test_a_confirm_whose_reply_was_lost_shows_the_recorded_outcome_not_a_replay(agent_server):
    transport = DroppingTransport(after=0, when=lambda body: "ui_action" in json.dumps(body.get("command")))
    result, values, view = act_with(agent_server, transport, f"inspection-95-{uuid.uuid4().hex[:6]}")
    assert transport.dropped == 1
    assert result["status"] == "done" and result["result"]["created"] is True
    assert len(values["ui_actions"]) == 1  # performed once, by the attempt whose reply was lost
    assert any(e[0] == "status" and "create_work_order: done" in e[1] for e in view.events)
