"""The composer's outbox kept on the device (session/kept_messages.py): a reload loses no waiting message."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fake_agent_server import RUNS, STATE, THREAD_ID, FakeTransport, RecordingView, sse, waiting_state
from memory_storage import DictStorage
from sessions_for_tests import parts_on, session_on

from sitewalk.session.kept_messages import KeptMessages, StoredOutboxCorrupt

KEY = f"{KeptMessages.PREFIX}{THREAD_ID}"
STREAM = f"{RUNS}/stream"
REPLY = sse(("metadata", {"run_id": "r9"}), ("values", {"messages": []}))




def kept(store: DictStorage) -> list[tuple[str, str]]:
    return [(m["id"], m["text"]) for m in json.loads(store.data[KEY])] if KEY in store.data else []


def server(on_thread: list[dict[str, Any]] | None = None) -> FakeTransport:
    """An idle thread t1 (with `on_thread` as its messages) that takes each message as a short run."""
    state = (200, waiting_state(values={"messages": on_thread or []}))
    return (FakeTransport().on("POST", STREAM, REPLY).on("GET", STATE, state)
            .on("POST", f"/threads/{THREAD_ID}/history", (200, [])).on("GET", RUNS, (200, [])))


def sent(fake: FakeTransport) -> list[tuple[str, str]]:
    return [(r.json["input"]["messages"][0]["id"], r.json["input"]["messages"][0]["content"])
            for r in fake.sent("POST", STREAM) if r.json.get("input")]


def test_a_waiting_message_is_kept_on_the_device_at_once_and_removed_once_sent():
    store = DictStorage()
    fake = server()
    conversation = parts_on(fake, RecordingView(), message_store=store).conversation

    async def go() -> None:
        async with conversation.running():  # a run is going: both wait
            assert await conversation.say("first", "user-1") == "waiting"
            assert kept(store) == [("user-1", "first")]  # written on append, before any await
            await conversation.say("second", "user-2")
            assert kept(store) == [("user-1", "first"), ("user-2", "second")]

    asyncio.run(go())
    assert sent(fake) == [("user-1", "first"), ("user-2", "second")]
    assert KEY not in store.data  # each removed once the server took it


def test_after_a_reload_the_kept_messages_come_back_in_order_with_their_ids_and_go_once():
    store = DictStorage({KEY: json.dumps([{"id": "user-1", "text": "first"}, {"id": "user-2", "text": "second"}])})
    fake = server()
    told: list[tuple[list[str], str]] = []
    session, _ = session_on(fake, message_store=store,
                            on_messages=lambda m, why: told.append(([x.text for x in m], why)))
    asyncio.run(session.reopen(THREAD_ID))  # what the app does after a reload
    assert told[0] == (["first", "second"], "waiting until the agent finishes")  # shown waiting under the box
    assert sent(fake) == [("user-1", "first"), ("user-2", "second")]
    assert KEY not in store.data and told[-1] == ([], "")


def test_a_kept_message_the_server_already_has_is_not_sent_again():
    store = DictStorage({KEY: json.dumps([{"id": "user-1", "text": "first"}, {"id": "user-2", "text": "second"}])})
    fake = server(on_thread=[{"type": "human", "id": "user-1", "content": "first"}])  # sent just before the reload
    session, _ = session_on(fake, message_store=store)
    asyncio.run(session.reopen(THREAD_ID))
    assert sent(fake) == [("user-2", "second")]
    assert KEY not in store.data


def test_a_kept_outbox_that_is_not_json_is_reported_then_dropped_and_the_reopen_goes_on():
    store = DictStorage({KEY: "{not json", f"{KeptMessages.PREFIX}other": json.dumps([{"id": "u", "text": "x"}])})
    fake = server()
    session, view = session_on(fake, message_store=store)
    asyncio.run(session.reopen(THREAD_ID))
    assert any(s.startswith("StoredOutboxCorrupt: ") and KEY in s and "not JSON" in s for s in view.statuses())
    assert KEY not in store.data and sent(fake) == []
    assert f"{KeptMessages.PREFIX}other" in store.data  # another thread's kept messages are untouched


def test_a_bad_entry_is_reported_and_dropped_while_the_good_ones_still_go():
    entries = [{"id": "user-1", "text": "first"}, ["not", "a", "message"], {"id": "user-3"},
               {"id": "user-4", "text": "fourth"}]
    store = DictStorage({KEY: json.dumps(entries)})
    fake = server()
    session, view = session_on(fake, message_store=store)
    asyncio.run(session.reopen(THREAD_ID))
    reported = [s for s in view.statuses() if s.startswith("StoredOutboxCorrupt: ")]
    assert len(reported) == 2 and "entry 1" in reported[0] and "entry 2" in reported[1]
    assert sent(fake) == [("user-1", "first"), ("user-4", "fourth")]
    assert KEY not in store.data


def test_a_kept_outbox_of_the_wrong_shape_is_a_typed_error_naming_its_key():
    messages, errors = KeptMessages(DictStorage({KEY: json.dumps({"id": "user-1"})}), THREAD_ID).load()
    assert messages == [] and len(errors) == 1
    assert isinstance(errors[0], StoredOutboxCorrupt) and errors[0].key == KEY and "dict" in errors[0].detail
