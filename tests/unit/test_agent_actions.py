"""ConfirmButton actions: authorized against the state; a work order is filed once per substance, whatever
branch or replay reaches it; closing it is an explicit compensation."""

from __future__ import annotations

import asyncio
import copy

import pytest
from graphs_for_tests import confirm_screen
from langgraph.types import Command

from sitewalk_agent.actions import authorize, close_button, expected_actions
from sitewalk_agent.demo.scripted_model import inspection_screen
from sitewalk_agent.workorders import WorkOrders
from sitewalk_shared.ui_spec.validate import validate_spec

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana", "findings": ["crack"], "risk": "high"}
UI = {**inspection_screen(DRAFT), "identity": {"message_id": "msg_1", "tool_call_id": "call_1", "revision": 1}}
AFTER_MODEL = "HeadlessToolsMiddleware.after_model"  # the node whose update leads to the press (a fork's as_node)
GOOD = {"type": "ui_action", "action": "create_work_order", "identity": UI["identity"], "element_id": "confirm",
        "idempotency_key": "ui:call_1:confirm:create_work_order"}


def test_expected_actions_are_the_screens_confirm_buttons():
    assert expected_actions(UI) == {"confirm": {"action": "create_work_order", "subject": "risk-1",
                                                "label": "Create work order"}}
    assert expected_actions(None) == {}


def test_a_close_button_is_added_and_removed_as_a_new_revision_of_the_screen():
    opened = close_button(UI, "WO-1", add=True)
    assert opened["identity"] == {**UI["identity"], "revision": 2}
    assert expected_actions(opened)["close-wo-1"] == {"action": "close_work_order", "subject": "WO-1",
                                                       "label": "Close work order WO-1"}
    assert close_button(opened, "WO-1", add=True) is opened  # there already: the screen as it is
    closed = close_button(opened, "WO-1", add=False)
    assert closed["identity"]["revision"] == 3 and "close-wo-1" not in expected_actions(closed)
    assert closed["elements"]["screen"]["children"] == UI["elements"]["screen"]["children"]
    assert UI["identity"]["revision"] == 1 and "close-wo-1" not in UI["elements"]  # the screen given is unchanged


@pytest.mark.parametrize("change, reason", [
    ({}, None),
    ({"type": "click"}, "not a ui_action"),
    ({"identity": {"tool_call_id": "call_old"}}, "not the current one"),
    ({"element_id": "note"}, "no button 'note'"),
    ({"action": "escalate_risk"}, "not 'escalate_risk'"),
    ({"idempotency_key": ""}, "no idempotency key"),
])
def test_authorize_checks_identity_element_action_and_key(change, reason):
    found = authorize(UI, {**GOOD, **change})
    assert (found is None) if reason is None else (reason in found)


async def confirmed_thread(thread_id="t-confirm"):
    """A graph (InMemorySaver, InMemoryStore) whose thread waits on the inspection screen's ConfirmButton."""
    config = {"configurable": {"thread_id": thread_id}}
    graph, _ = await confirm_screen(config, DRAFT)
    return graph, config


async def press(graph, config, element_id="confirm", action="create_work_order", key=None):
    """Press a button of the screen on record (as the browser does) and return the agent's answer."""
    state = await graph.aget_state(config)
    [ask] = state.interrupts
    assert ask.value["type"] == "ui_action_request"
    identity = state.values["ui_spec"]["identity"]
    request = {**GOOD, "action": action, "element_id": element_id, "identity": identity,
               "idempotency_key": key or f"ui:{identity['tool_call_id']}:{element_id}:{action}"}
    await graph.ainvoke(Command(resume={ask.id: request}), config)
    return (await graph.aget_state(config)).values["ui_action_result"]


async def before_the_action(graph, config):
    """The checkpoint that waited for the first press (no action taken yet on that path)."""
    return [s async for s in graph.aget_state_history(config) if s.interrupts and not s.values.get("ui_actions")][0]


@pytest.fixture
def orders(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))
    return WorkOrders(tmp_path / "workorders.sqlite3")


def test_confirm_in_the_graph_is_done_once_and_a_press_again_changes_nothing(orders):
    async def go():
        graph, config = await confirmed_thread()
        ask = (await graph.aget_state(config)).interrupts[0]
        assert ask.value["actions"][0]["element_id"] == "confirm"
        results = [await press(graph, config), await press(graph, config),
                   await press(graph, config, action="escalate_risk", key="k2")]
        assert [r["status"] for r in results] == ["done", "replayed", "refused"]
        [row] = orders.orders()
        assert results[0]["result"] == {"work_order": row["id"], "key": row["key"], "created": True, "status": "open"}
        assert results[1]["result"]["work_order"] == row["id"] and results[1]["result"]["created"] is False
        assert row["key"].startswith("work-order:inspection-42:risk-1:high:") and row["thread_id"] == "t-confirm"
        before = await before_the_action(graph, config)
        assert row["checkpoint_id"] == before.config["configurable"]["checkpoint_id"]
        values = (await graph.aget_state(config)).values
        assert len(values["ui_actions"]) == 1
        assert values["messages"][-1].content == f"Work order {row['id']} created."
        close = values["ui_spec"]["elements"][f"close-{row['id'].lower()}"]["props"]
        assert close == {"label": f"Close work order {row['id']}", "action": "close_work_order",
                         "variant": "danger", "subject": row["id"]}
        screen = {"root": values["ui_spec"]["root"], "elements": values["ui_spec"]["elements"]}
        assert validate_spec(screen) == []  # the browser can render the close button

    asyncio.run(go())


def test_replay_and_fork_that_reach_the_same_order_return_the_original(orders):
    async def go():
        graph, config = await confirmed_thread()
        first = await press(graph, config)
        before = await before_the_action(graph, config)
        await graph.ainvoke(None, before.config)  # replay: the press is asked for again
        replayed = await press(graph, config)
        fork = await graph.aupdate_state(before.config, {"inspection_id": "inspection-42"},
                                         as_node=AFTER_MODEL)
        await graph.ainvoke(None, fork)  # a fork that changes nothing of the order's substance
        forked = await press(graph, config)
        assert [r["status"] for r in (first, replayed, forked)] == ["done", "done", "done"]
        assert [r["result"]["created"] for r in (first, replayed, forked)] == [True, False, False]
        assert {r["result"]["work_order"] for r in (first, replayed, forked)} == {first["result"]["work_order"]}
        assert len(orders.orders()) == 1
        # the new branch records the original order, and says nothing new was filed
        values = (await graph.aget_state(config)).values
        assert [a["result"]["work_order"] for a in values["ui_actions"]] == [first["result"]["work_order"]]
        assert values["messages"][-1].content == f"Work order {first['result']['work_order']} already exists."
        assert (await press(graph, config))["status"] == "replayed"  # pressed again on the fork: nothing new
        assert len(orders.orders()) == 1

    asyncio.run(go())


def test_a_fork_that_changes_the_risk_files_a_second_order_with_a_new_key(orders):
    async def go():
        graph, config = await confirmed_thread()
        first = await press(graph, config)
        before = await before_the_action(graph, config)
        spec = copy.deepcopy(before.values["ui_spec"])
        spec["elements"]["risk"]["props"].update(level="critical", label="Risk: critical")
        fork = await graph.aupdate_state(before.config, {"ui_spec": spec}, as_node=AFTER_MODEL)
        await graph.ainvoke(None, fork)
        second = await press(graph, config)
        assert second["status"] == "done" and second["result"]["created"] is True
        assert second["result"]["key"].startswith("work-order:inspection-42:risk-1:critical:")
        rows = orders.orders()
        assert [r["key"] for r in rows] == [first["result"]["key"], second["result"]["key"]]
        assert len({r["id"] for r in rows}) == 2
        history = [s async for s in graph.aget_state_history(config)]  # the old branch is still there
        assert any((s.values.get("ui_action_result") or {}).get("result", {}).get("key") == first["result"]["key"]
                   for s in history)

    asyncio.run(go())


def test_closing_is_an_explicit_compensation_on_the_branch_where_it_happens(orders):
    async def go():
        graph, config = await confirmed_thread()
        first = await press(graph, config)
        order_id = first["result"]["work_order"]
        before = await before_the_action(graph, config)
        await graph.ainvoke(None, before.config)  # rewinding closes nothing
        assert [r["status"] for r in orders.orders()] == ["open"]
        replayed = await press(graph, config)  # the replayed branch gets the order, and its close button
        closed = await press(graph, config, element_id=f"close-{order_id.lower()}", action="close_work_order")
        assert replayed["result"]["work_order"] == order_id
        assert closed["status"] == "done" and closed["result"]["closed"] is True
        [row] = orders.orders()
        assert row["status"] == "closed" and row["closed_at"] and row["closed_by"]
        assert row["closed_thread_id"] == "t-confirm" and row["closed_checkpoint_id"]
        values = (await graph.aget_state(config)).values
        assert [a["action"] for a in values["ui_actions"]] == ["create_work_order", "close_work_order"]
        assert f"close-{order_id.lower()}" not in values["ui_spec"]["elements"]
        assert values["messages"][-1].content == f"Work order {order_id} closed."
        # the first branch never saw the closing: its record still shows the order open
        old = [s async for s in graph.aget_state_history(config)
               if s.values.get("ui_actions") and len(s.values["ui_actions"]) == 1
               and s.values["ui_actions"][0]["result"].get("created")]
        assert old and old[0].values["ui_actions"][0]["result"]["status"] == "open"

    asyncio.run(go())


def test_a_close_button_for_an_unknown_order_is_refused_and_nothing_changes(orders):
    async def go():
        graph, config = await confirmed_thread()
        spec = close_button((await graph.aget_state(config)).values["ui_spec"], "WO-UNKNOWN", add=True)
        await graph.aupdate_state(config, {"ui_spec": spec}, as_node=AFTER_MODEL)
        await graph.ainvoke(None, config)
        answer = await press(graph, config, element_id="close-wo-unknown", action="close_work_order")
        assert answer["status"] == "failed" and "no work order 'WO-UNKNOWN'" in answer["reason"]
        assert orders.orders() == []
        assert not (await graph.aget_state(config)).values.get("ui_actions")

    asyncio.run(go())


def test_each_order_is_mirrored_into_the_store_with_its_key_id_and_status(orders):
    from sitewalk_shared.contracts.workorders import work_orders_namespace

    async def go():
        graph, config = await confirmed_thread()
        first = await press(graph, config)
        key, order_id = first["result"]["key"], first["result"]["work_order"]
        created = (await graph.store.aget(work_orders_namespace(), key)).value
        await press(graph, config, element_id=f"close-{order_id.lower()}", action="close_work_order")
        closed = (await graph.store.aget(work_orders_namespace(), key)).value
        return created, closed, orders.get(key)

    created, closed, row = asyncio.run(go())
    assert created["id"] == row["id"] and created["key"] == row["key"] and created["status"] == "open"
    assert created["inspection_id"] == "inspection-42" and created["thread_id"] == "t-confirm"
    assert "substance" not in created  # the public fields only
    assert closed["status"] == "closed" == row["status"] and closed["closed_at"] == row["closed_at"]
