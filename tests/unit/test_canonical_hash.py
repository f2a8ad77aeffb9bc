"""One canonical JSON and one sha256 for every hash both sides compare (`sitewalk_shared.contracts.canonical`)."""

from __future__ import annotations

import asyncio
import hashlib
import math
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from sitewalk.session.reviews import PendingReview
from sitewalk_agent.audit import record_review_decision
from sitewalk_agent.review import ReviewMiddleware
from sitewalk_shared.contracts.canonical import args_hash, canonical_json, sha256_of


def test_canonical_json_sorts_keys_drops_spaces_keeps_utf8_and_writes_none_as_null():
    assert canonical_json({"b": 1, "a": [1, {"d": "é", "c": None}]}) == '{"a":[1,{"c":null,"d":"é"}],"b":1}'
    assert sha256_of({"y": "z", "x": 1}) == hashlib.sha256(b'{"x":1,"y":"z"}').hexdigest()
    assert args_hash(None) == hashlib.sha256(b"null").hexdigest() != args_hash({})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinities_are_refused_with_a_clear_error(bad: float):
    with pytest.raises(ValueError, match="NaN and infinities have no JSON form"):
        sha256_of({"level": bad})


class _State(TypedDict, total=False):
    done: bool


def _card_for(args: Any) -> PendingReview:
    """The review card the browser reads for a call with `args`, asked by the server's ReviewMiddleware."""
    def ask(state: _State) -> _State:
        call: Any = {"name": "notify_site_manager", "args": args, "id": "call_1", "type": "tool_call"}
        no_runtime: Any = None  # the card is built from the call alone
        ReviewMiddleware()._resolve_per_call(ToolCallRequest(tool_call=call, tool=None, state={}, runtime=no_runtime))
        return {"done": True}

    graph = StateGraph(_State).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    compiled = graph.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t-card"}}
    compiled.invoke(_State(), config)
    [pending] = compiled.get_state(config).interrupts
    card = PendingReview.of({"id": pending.id, "value": pending.value})
    assert card is not None
    return card


def _audited_hash(args: Any) -> str:
    async def go() -> dict[str, Any] | None:
        return await record_review_decision(InMemoryStore(), {"configurable": {"thread_id": "t-audit"}}, {},
                                            interrupt_id="i1", tool_call_id="call_1", tool_name="notify_site_manager",
                                            args=args, args_revision=1, decision="approved")
    record = asyncio.run(go())
    assert record is not None
    return str(record["args_hash"])


ARGS = [None, {"message": "Pier 7: crack", "urgent": None}, {"message": "é ü", "cc": [None, 1]}]


@pytest.mark.parametrize("args", ARGS)
def test_the_review_card_and_the_audit_record_hash_the_same_args_identically(args: dict[str, Any] | None):
    card = _card_for(args)
    assert card.args_hash == _audited_hash(args) == args_hash(args)


def test_a_card_for_nan_arguments_is_refused_like_an_audit_record():
    with pytest.raises(ValueError, match="NaN"):
        _card_for({"level": math.nan})
    with pytest.raises(ValueError, match="NaN"):
        _audited_hash({"level": math.nan})
