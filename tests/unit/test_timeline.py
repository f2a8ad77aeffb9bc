"""The timeline model from recorded real history pages (tests/unit/fixtures/history/record_history.py):
one inspection through a work order, then forked by editing the inspector's first message."""

from __future__ import annotations

import asyncio
import copy
import json
import re

import pytest
from history_endpoint import older_pages_held, served
from recorded import load_history

from sitewalk.base.server_errors import NotFound, ServerError
from sitewalk.timeline import (
    HistoryPageFailed,
    StaleGuard,
    StaleResponse,
    TimelinePager,
    TimelineTree,
    UnknownCheckpoint,
    check_actions,
    facts_of,
    name_step,
    restore_preview,
)
from sitewalk.timeline.preview import RecordsUnreadable

RECORDED = load_history("confirm_fork.json")
ALL = RECORDED["all"]


def _created_order() -> str:
    """The id of the work order the recorded run created (the server's, new at each recording)."""
    for entry in ALL:
        for message in entry["values"].get("messages", []):
            found = re.search(r"Work order (WO-\w+) created", str(message.get("content")))
            if message["type"] == "ai" and found:
                return found.group(1)
    raise AssertionError("the recording has no work order")


ORDER = _created_order()


def _tree(pages=None, page_size=4):
    tree = TimelineTree()
    for page in pages if pages is not None else RECORDED["pages"]:
        tree.add_page(page, page_size)
    return tree


def _titles(tree, head):
    return [step.name.title for step in tree.steps(head)]


def test_pages_with_duplicates_build_one_tree_with_both_branches():
    tree = _tree()
    assert sum(len(p) for p in RECORDED["pages"]) > len(ALL)  # the overlapping page repeats entries
    assert len(tree) == len(ALL) and tree.exhausted
    assert tree.live_head == RECORDED["head"]
    live, old = tree.branches()
    assert live.live and not old.live and live.head == RECORDED["head"]
    assert live.fork_point == old.fork_point  # both leave the run's input checkpoint
    assert live.title.endswith("(edited)") and "The route was wrong" in live.title
    assert old.title == "You said: Start inspection inspection-42 script: confirm"


def test_the_old_branch_stays_readable_with_its_work_order():
    tree = _tree()
    old = tree.branches()[1]
    titles = _titles(tree, old.head)
    assert titles[0] == "Waiting for your decision"
    for expected in (f"Work order {ORDER} created", "Showed the inspection screen (rev 1)",
                     "Read your draft", "Decided to ask for your draft", "Decided to show a screen",
                     "Waiting for your device: your draft"):
        assert expected in titles
    steps = tree.steps(old.head)
    assert not any(s.live for s in steps[:-1]) and steps[-1].live  # only the shared input step is live
    assert steps[-1].forks == 1


def test_steps_carry_call_ids_spec_identity_and_node_names_for_details():
    tree = _tree()
    steps = {s.name.title: s for s in tree.steps(tree.branches()[1].head)}
    screen = steps["Showed the inspection screen (rev 1)"]
    assert screen.name.spec.startswith("rev 1 · call_") and screen.name.call_ids[0].startswith("call_")
    assert screen.node == "tools"
    read = steps["Read your draft"]
    ask = steps["Waiting for your device: your draft"]
    assert read.name.call_ids == ask.name.call_ids and ask.facts.interrupted and ask.name.kind == "waiting"
    order = steps[f"Work order {ORDER} created"]
    assert order.name.call_ids[0].startswith("work-order:inspection-42:risk-1:")  # the order's key
    assert all("Middleware" not in title for title in steps)  # node names only in the details


def _location_step(envelope):
    """The recorded "Read your draft" step, its tool message made a get_current_location answer."""
    read = next(e for e in ALL if e["values"].get("messages", [{}])[-1].get("name") == "read_local_draft")
    entry = copy.deepcopy(read)
    parent = facts_of(next(e for e in ALL if e["checkpoint"]["checkpoint_id"]
                           == entry["parent_checkpoint"]["checkpoint_id"]))
    message = entry["values"]["messages"][-1]
    message["name"] = "get_current_location"
    message["content"] = json.dumps(envelope)
    return name_step(facts_of(entry), parent)


def test_a_declined_location_is_named_so():
    name = _location_step({"ok": False, "error": {"code": "permission_denied", "message": "denied"}})
    assert name.title == "Asked for your location: declined" and name.kind == "device"


def test_a_typed_location_is_named_so():
    result = {"latitude": 1.5, "longitude": 2.5, "accuracy_m": None, "timestamp": "t", "source": "manual"}
    assert _location_step({"ok": True, "result": result}).title == "Asked for your location: typed by you"
    device = {**result, "source": "device", "accuracy_m": 5.0}
    assert _location_step({"ok": True, "result": device}).title == "Asked for your location"


def test_facts_keep_no_values():
    facts = facts_of(ALL[5])
    assert not hasattr(facts, "values") and not hasattr(facts, "__dict__")  # slots: a few fields only
    assert facts.message_count == len(ALL[5]["values"]["messages"])


def test_pager_reads_newest_first_and_older_pages_before_the_cursor():
    calls = []
    pager = TimelinePager("t1", served(ALL, calls), StaleGuard(), page_size=5)
    tree = asyncio.run(pager.first_page())
    assert len(tree) == 5 and tree.live_head == ALL[0]["checkpoint"]["checkpoint_id"] and calls == [(5, None)]
    added = asyncio.run(pager.older())
    assert len(added) == 5 and calls[-1] == (5, ALL[4]["checkpoint"]["checkpoint_id"])
    while asyncio.run(pager.older()):
        pass
    assert len(pager.tree) == len(ALL) and pager.tree.exhausted


def test_a_scroll_and_a_press_at_once_read_one_page_not_two():
    calls = []
    endpoint = served(ALL, calls)
    gate = asyncio.Event()

    slow = older_pages_held(endpoint, gate)

    async def go():
        pager = TimelinePager("t1", slow, StaleGuard(), page_size=4)
        await pager.first_page()
        scrolled = asyncio.create_task(pager.older())
        pressed = asyncio.create_task(pager.older())
        await asyncio.sleep(0)
        assert pager.loading
        gate.set()
        return pager, await scrolled, await pressed

    pager, scrolled, pressed = asyncio.run(go())
    assert scrolled == pressed and len(scrolled) == 4 and len(calls) == 2  # the first page, then one older one
    assert len(pager.tree) == 8 and not pager.loading


def test_a_late_page_of_another_thread_is_never_written():
    guard = StaleGuard()
    gate = asyncio.Event()

    async def slow(limit, before):
        await gate.wait()
        return ALL[:limit]

    async def go():
        a = TimelinePager("thread-a", slow, guard)
        b = TimelinePager("thread-b", served(ALL[10:]), guard)
        late = asyncio.create_task(a.first_page())
        await asyncio.sleep(0)
        tree_b = await b.first_page()
        gate.set()
        with pytest.raises(StaleResponse):
            await late
        return a, tree_b

    a, tree_b = asyncio.run(go())
    assert len(a.tree) == 0 and tree_b.live_head == ALL[10]["checkpoint"]["checkpoint_id"]


def test_a_refresh_makes_the_older_load_stale():
    guard = StaleGuard()
    pager = TimelinePager("t", served(ALL), guard, page_size=3)
    asyncio.run(pager.first_page())
    asyncio.run(pager.older())
    guard.claim("t")  # a newer refresh of the same thread
    with pytest.raises(StaleResponse):
        asyncio.run(pager.older())
    assert len(pager.tree) == 6


def test_a_page_failing_mid_way_is_retried_and_then_reported_keeping_what_was_loaded():
    failures = {"left": 2}
    endpoint = served(ALL)

    async def flaky(limit, before):
        if before is not None and failures["left"]:
            failures["left"] -= 1
            raise ServerError(502)
        return await endpoint(limit, before)

    pager = TimelinePager("t", flaky, StaleGuard(), page_size=4)
    asyncio.run(pager.first_page())
    assert len(asyncio.run(pager.older())) == 4  # two failures, then the third try answered

    failures["left"] = 10
    cursor = pager.tree.cursor
    with pytest.raises(HistoryPageFailed):
        asyncio.run(pager.older())
    assert len(pager.tree) == 8 and pager.tree.cursor == cursor


def test_a_404_is_not_retried():
    calls = []

    async def missing(limit, before):
        calls.append(before)
        raise NotFound(404)

    with pytest.raises(NotFound):
        asyncio.run(TimelinePager("t", missing, StaleGuard()).first_page())
    assert len(calls) == 1


def test_restore_preview_lists_the_replaced_path_and_the_deduplicated_work_order():
    tree = _tree()
    old = tree.branches()[1]
    tree.live_head = old.head  # as the thread stood before the fork
    read = next(s for s in tree.steps(old.head) if s.name.title == "Read your draft")
    preview = restore_preview(tree, "t", read.id)
    assert preview.complete and preview.replaced[0].id == old.head and read.id not in {s.id for s in preview.replaced}
    assert [a.label for a in preview.actions] == [f"Work order {ORDER}"]
    assert preview.actions[0].deduplicated
    assert not restore_preview(tree, "t", old.head).changes_anything


def _preview_with_order():
    tree = _tree()
    old = tree.branches()[1]
    tree.live_head = old.head
    read = next(s for s in tree.steps(old.head) if s.name.title == "Read your draft")
    return restore_preview(tree, "t", read.id)


def test_the_preview_checks_each_work_order_against_its_real_record():
    preview = _preview_with_order()
    [action] = preview.actions
    asked = []

    async def found(key):
        asked.append(key)
        return {"key": key, "id": "WO-1A2B3C4D5E", "status": "open"}

    async def missing(key):
        return None

    checked = asyncio.run(check_actions(preview, found)).actions[0]
    assert asked == [action.idempotency_key] and checked.checked and checked.deduplicated
    assert checked.order_id == "WO-1A2B3C4D5E" and checked.label == "Work order WO-1A2B3C4D5E"
    assert checked.outcome == "already created: WO-1A2B3C4D5E — a replay returns it"
    new = asyncio.run(check_actions(preview, missing)).actions[0]
    assert new.checked and not new.deduplicated and new.outcome.startswith("new:")

    async def closed(key):
        return {"id": "WO-1A2B3C4D5E", "status": "closed"}

    assert "(closed since)" in asyncio.run(check_actions(preview, closed)).actions[0].outcome


def test_a_record_that_cannot_be_read_leaves_what_the_checkpoint_says():
    preview = _preview_with_order()
    for error in (ServerError(503), RecordsUnreadable("the store scopes namespaces per user")):
        async def unread(key, error=error):
            raise error

        [action] = asyncio.run(check_actions(preview, unread)).actions
        assert action == preview.actions[0] and not action.checked  # never "new" on what was not read
        assert action.outcome == "if reached again, the existing one is returned (no duplicate)"


def test_a_work_order_action_carries_its_business_key_not_the_press_key():
    entry = copy.deepcopy(next(e for e in ALL if e["values"].get("ui_actions")))
    record = entry["values"]["ui_actions"][-1]
    record["result"] = {"work_order": "WO-77", "key": "work-order:inspection-42:risk-1:high:abc", "created": True}
    assert facts_of(entry).last_action == ("create_work_order", "work-order:inspection-42:risk-1:high:abc", "WO-77")


def test_restore_preview_of_an_unknown_checkpoint_is_refused():
    with pytest.raises(UnknownCheckpoint):
        restore_preview(_tree(), "t", "not-a-checkpoint")


def _entry(cid, parent, step, source="loop", next_=(), messages=0):
    return {"checkpoint": {"checkpoint_id": cid}, "parent_checkpoint": {"checkpoint_id": parent} if parent else None,
            "metadata": {"step": step, "source": source}, "next": list(next_), "tasks": [],
            "values": {"messages": [{"type": "human", "id": "h1", "content": "hi"}] * messages},
            "created_at": f"2026-12-02T10:00:{step + 10:02d}Z"}


def test_a_synthetic_fork_names_its_nodes_from_the_parent_and_marks_the_live_path():
    history = [_entry("c3", "c1", 2, source="update", messages=1), _entry("c2", "c1", 2, next_=("tools",), messages=1),
               _entry("c1", "c0", 1, next_=("agent",), messages=1), _entry("c0", None, 0, source="input",
                                                                           next_=("__start__",))]
    tree = _tree([history + history[:1]], page_size=10)
    assert len(tree) == 4 and tree.live_head == "c3"
    by_id = {s.id: s for s in tree.steps("c2")}
    assert by_id["c2"].node == "agent" and by_id["c1"].forks == 1 and by_id["c0"].node == "input"
    assert [s.id for s in tree.steps()] == ["c3", "c1", "c0"] and all(s.live for s in tree.steps())
    assert not by_id["c2"].live and by_id["c1"].live
