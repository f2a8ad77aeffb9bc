"""Follow-ups, the list of this device's inspections and reopening one, against the real agent server."""

from __future__ import annotations

import asyncio
import json
import uuid

from memory_storage import MemoryStore
from test_session_live import RecordingView, _quick_retry

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.inspections import InspectionList
from sitewalk.session import DeviceHooks, InspectionSession


class TranscriptView(RecordingView):
    def __init__(self):
        super().__init__()
        self.said = {}

    def user_text(self, message_id, text):
        self.said[message_id] = text


def test_a_follow_up_changes_the_risk_on_record_and_a_reopen_shows_it(agent_server):
    device = f"device-{uuid.uuid4().hex[:8]}"
    store = {draft_key(f"inspection-{n}"): json.dumps({"site": "Pier 4", "risk": "low"}) for n in (91, 92)}

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(MemoryStore(store)))
        async with AgentServerClient(agent_server) as client:
            view = TranscriptView()
            first = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=_quick_retry))
            await first.start("inspection-91", metadata={"device_id": device})
            assert view.screens[-1]["elements"]["risk"]["props"]["level"] == "low"
            assert await first.say("The risk is critical") == "sent"
            state = await client.threads.get_state(first.thread_id)
            second = InspectionSession(client, registry, TranscriptView(),
                                       device_hooks=DeviceHooks(wait_for_network=_quick_retry))
            await second.start("inspection-92", metadata={"device_id": device})
            listed = InspectionList(client, device, page_size=1)
            await listed.more()
            await listed.more()
            again = TranscriptView()
            await InspectionSession(client, registry, again).reopen(first.thread_id)
            return view, state, listed, again, first.thread_id

    view, state, listed, again, thread_id = asyncio.run(go())
    assert state["values"]["ui_spec"]["elements"]["risk"]["props"] == {"level": "critical", "label": "Risk: critical"}
    assert view.screens[-1]["elements"]["risk"]["props"]["level"] == "critical"  # the inline patch, streamed
    assert "Understood: the risk is now critical." in [t.strip() for t in view.texts.values()]
    # this device's two inspections, newest first, one a page
    assert [(e.inspection_id, e.status.words) for e in listed.entries] == [("inspection-92", "done"),
                                                                           ("inspection-91", "done")]
    assert listed.entries[1].thread_id == thread_id
    # reopened: both sides of the conversation and the screen on record, from the server's state
    assert list(again.said.values()) == ["Start inspection inspection-91", "The risk is critical"]
    assert again.screens[-1]["elements"]["risk"]["props"]["level"] == "critical"
    assert again.checkpoints
