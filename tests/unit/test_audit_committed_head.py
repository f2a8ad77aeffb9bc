"""The app's audit view compares the trail with the head the thread's state committed (`audit_head`).

The chain alone misses a tail cut off together with the store's head pointer, and a record re-sealed
with correct hashes below the API; the head in the thread's checkpointed state shows both, as
`python -m sitewalk_agent.audit verify` does. Pure logic (`head_mismatch`), the read (one GET of the
state next to the store's search), and the panel's words. Against Aegra's Postgres:
tests/durable/test_audit_tamper.py::test_a_resealed_or_cut_trail_below_the_api_is_caught.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fake_agent_server import FakeTransport
from sessions_for_tests import client_on

from sitewalk.audit_trail import HeadMismatch, head_mismatch, read_audit_trail
from sitewalk.base.server_errors import Unauthorized
from sitewalk.ui.render import render_template
from sitewalk_shared.contracts.audit import GENESIS, HEAD_KEY, audit_namespace, committed_head, seal

THREAD = "t-audit"


def chain(n: int) -> list[tuple[str, dict[str, Any]]]:
    """n sealed records and the store's head pointer, as the store holds them."""
    items, prev = [], GENESIS
    for seq in range(1, n + 1):
        key, record = seal({"kind": "tool_call", "tool_name": f"tool_{seq}"}, seq, prev)
        items.append((key, record))
        prev = str(record["hash"])
    if items:
        items.append((HEAD_KEY, {**committed_head(items[-1][1]), "key": items[-1][0]}))
    return items


def records(items: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [value for key, value in items if key != HEAD_KEY]


def test_a_trail_holding_the_committed_head_matches():
    trail = records(chain(3))
    assert head_mismatch(trail, None) is None  # nothing committed yet
    assert head_mismatch(trail, committed_head(trail[2])) is None
    assert head_mismatch(trail, committed_head(trail[1])) is None  # records after the last committed step


def test_a_tail_cut_with_its_head_pointer_is_a_cut_after_the_last_step_left():
    whole = records(chain(3))
    mismatch = head_mismatch(whole[:2], committed_head(whole[2]))
    assert mismatch == HeadMismatch("cut", committed=3, ends_at=2)
    assert str(mismatch) == "the trail was cut after step 2: the thread's checkpoints committed step 3"
    assert head_mismatch([], committed_head(whole[0])) == HeadMismatch("cut", 1, 0)


def test_a_resealed_record_is_a_change_at_or_before_the_committed_step():
    committed = committed_head(records(chain(3))[2])
    forged = records(chain(3))
    forged[2] = seal({"kind": "tool_call", "tool_name": "forged"}, 3, forged[1]["hash"])[1]  # a chain that links
    mismatch = head_mismatch(forged, committed)
    assert mismatch == HeadMismatch("changed", committed=3, ends_at=3)
    assert str(mismatch).startswith("the trail was changed at or before step 3")


@pytest.mark.parametrize("committed", ["abc", {"seq": "3", "hash": "x"}, {"seq": True, "hash": "x"}, {"seq": 1},
                                       [1, "x"]])
def test_a_committed_head_that_is_not_a_seq_and_hash_is_said_unreadable_not_a_crash(committed):
    mismatch = head_mismatch(records(chain(2)), committed)
    assert mismatch is not None and mismatch.kind == "unreadable" and "unreadable" in str(mismatch)


def _server(items: list[tuple[str, dict[str, Any]]], state: Any) -> FakeTransport:
    namespace = list(audit_namespace(THREAD))
    found = [{"namespace": namespace, "key": key, "value": value} for key, value in items]
    return (FakeTransport().on("POST", "/store/items/search", (200, {"items": found}))
            .on("GET", f"/threads/{THREAD}/state", state))


def test_the_panel_says_a_trail_cut_after_the_committed_step_though_its_chain_is_whole():
    """The old view read the store only: a tail cut together with the head pointer showed "Chain whole"."""
    whole = chain(3)
    committed = committed_head(whole[2][1])
    cut = [*whole[:2], (HEAD_KEY, {**committed_head(whole[1][1]), "key": whole[1][0]})]
    trail = asyncio.run(read_audit_trail(client_on(_server(cut, (200, {"values": {"audit_head": committed}}))),
                                         THREAD))
    assert trail.problem is None and trail.mismatch == HeadMismatch("cut", 3, 2) and not trail.whole
    html = str(render_template("audit_trail.j2", trail=trail))
    assert 'data-chain="broken"' in html and 'data-mismatch="cut"' in html
    assert "the trail was cut after step 2: the thread&#39;s checkpoints committed step 3" in html
    assert trail.verdict().startswith("broken: the trail was cut after step 2")


def test_the_panel_says_whole_up_to_the_committed_step():
    items = chain(3)
    state = (200, {"values": {"audit_head": committed_head(items[2][1]), "messages": []}})
    trail = asyncio.run(read_audit_trail(client_on(_server(items, state)), THREAD))
    assert trail.whole and trail.verdict() == "whole"
    html = str(render_template("audit_trail.j2", trail=trail))
    assert 'data-chain="whole"' in html and 'data-committed="3"' in html
    assert "step 3 as the thread's checkpoints committed it" in html


def test_a_state_that_cannot_be_read_is_said_and_the_chain_still_shown():
    items = chain(2)
    trail = asyncio.run(read_audit_trail(client_on(_server(items, (500, {"detail": "down"}))), THREAD))
    assert trail.problem is None and trail.mismatch is None and trail.committed_unread
    html = str(render_template("audit_trail.j2", trail=trail))
    assert 'id="sw-audit-committed-unread"' in html and html.count("<li ") == 2


def test_a_refused_state_read_asks_for_a_sign_in_like_the_store_read():
    with pytest.raises(Unauthorized):
        asyncio.run(read_audit_trail(client_on(_server(chain(1), (401, {"detail": "sign in"}))), THREAD))
