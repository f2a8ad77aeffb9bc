"""Who the agent records as the actor of a press, a close and a review: the server's authenticated user
(`langgraph_auth_user`), never what the request claims; without sign-in, the inspector's name marked
unauthenticated. And the `whoami` graph the sign-in form asks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from graphs_for_tests import confirm_screen
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command
from pydantic import BaseModel, ConfigDict

from sitewalk_agent.audit.context import actor, owner_of
from sitewalk_agent.whoami import graph as whoami
from sitewalk_agent.workorders import WorkOrders
from sitewalk_shared.contracts.audit import HEAD_KEY, audit_namespace

DRAFT = {"inspection_id": "inspection-42", "site": "Pier 7", "inspector": "Ana Draft", "findings": ["crack"],
         "risk": "high"}
ANA = {"identity": "ana", "display_name": "Ana Ortiz", "authenticated": True}


class AegraUser(BaseModel):
    """The shape of Aegra's `langgraph_auth_user` (aegra_api.models.auth.User): attributes, extra allowed."""

    model_config = ConfigDict(extra="allow")
    identity: str
    display_name: str | None = None
    is_authenticated: bool = True


@pytest.fixture(autouse=True)
def orders(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEWALK_WORKORDERS_DB", str(tmp_path / "workorders.sqlite3"))
    return WorkOrders(tmp_path / "workorders.sqlite3")


def configured(thread_id: str, **configurable: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, **configurable}}


async def pressed_and_closed(config: dict[str, Any]) -> tuple[dict[str, Any], InMemoryStore]:
    """A confirm inspection whose work order is created, then closed, each press claiming to be Mallory."""
    graph, _ = await confirm_screen(config, DRAFT)
    for _ in range(2):  # create, then the close button the screen gets
        state = await graph.aget_state(config)
        [ask] = state.interrupts
        button = ask.value["actions"][-1]
        element_id = button["element_id"]
        identity = state.values["ui_spec"]["identity"]
        press = {"type": "ui_action", "action": button["action"], "identity": identity, "element_id": element_id,
                 "idempotency_key": f"ui:{identity['tool_call_id']}:{element_id}", "inspector": "Mallory"}
        await graph.ainvoke(Command(resume={ask.id: press}), config)
    return dict((await graph.aget_state(config)).values), graph.store


def trail(store: InMemoryStore, thread_id: str, owner: str | None) -> list[dict[str, Any]]:
    items = store.search(audit_namespace(thread_id, owner), limit=1000)
    return [i.value for i in sorted(items, key=lambda i: i.key) if i.key != HEAD_KEY]


@pytest.mark.parametrize("user", [{"identity": "ana", "display_name": "Ana Ortiz"},
                                  AegraUser(identity="ana", display_name="Ana Ortiz")], ids=["dict", "aegra"])
def test_the_signed_in_user_is_the_actor_whatever_the_press_claims(user, orders):
    # a forged id beside the real user (Aegra copies a run's configurable from the request)
    config = configured("t-ana", langgraph_auth_user=user, langgraph_auth_user_id="mallory", user_id="mallory",
                        inspector="Mallory")
    values, store = asyncio.run(pressed_and_closed(config))
    assert [a["action"] for a in values["ui_actions"]] == ["create_work_order", "close_work_order"]
    assert all(a["by"] == ANA for a in values["ui_actions"])
    [row] = orders.orders()
    assert row["status"] == "closed" and row["closed_by"] == "ana"
    records = trail(store, "t-ana", owner="ana")
    assert [r["kind"] for r in records if r["kind"] == "ui_action"] == ["ui_action", "ui_action"]
    assert all(r["reviewer"] == ANA for r in records)
    assert trail(store, "t-ana", owner=None) == [] and trail(store, "t-ana", owner="mallory") == []


def test_without_sign_in_the_actor_is_the_named_inspector_marked_unauthenticated(orders):
    # langgraph dev with sign-in off: everyone is the auth handler's one `anonymous` user
    anonymous = {"identity": "anonymous", "display_name": "Anonymous"}
    config = configured("t-anon", langgraph_auth_user=anonymous, langgraph_auth_user_id="anonymous")
    values, store = asyncio.run(pressed_and_closed(config))
    mallory = {"identity": "Mallory", "display_name": "Mallory", "authenticated": False}
    assert all(a["by"] == mallory for a in values["ui_actions"])
    [row] = orders.orders()
    assert row["closed_by"] == "Mallory"  # not "anonymous"
    actions = [r for r in trail(store, "t-anon", owner=None) if r["kind"] == "ui_action"]
    assert len(actions) == 2 and all(r["reviewer"] == mallory for r in actions)


@pytest.mark.parametrize("configurable", [
    {"langgraph_auth_user_id": "ana"}, {"user_id": "ana", "user_display_name": "Ana"},
    {"langgraph_auth_user": {"identity": "anonymous"}}, {"langgraph_auth_user": None}, {},
])
def test_ids_a_request_can_carry_never_authenticate(configurable):
    config = configured("t", **configurable)
    assert owner_of(config) is None
    assert actor(config, claimed="Bo") == {"identity": "Bo", "display_name": "Bo", "authenticated": False}


def test_whoami_answers_the_servers_user_and_nobody_without_sign_in():
    signed = configured("t-who", langgraph_auth_user=AegraUser(identity="ana", display_name="Ana Ortiz"))
    assert whoami.invoke({}, signed) == ANA
    assert whoami.invoke({"identity": "mallory", "authenticated": True}, signed) == ANA  # input is not read
    anonymous = configured("t-who", langgraph_auth_user={"identity": "anonymous"}, inspector="Mallory")
    assert whoami.invoke({}, anonymous)["authenticated"] is False
