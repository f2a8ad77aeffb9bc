"""Hostile tool results at the contract boundary (sitewalk_agent.headless), fuzzed with hypothesis.

Whatever the browser (or anyone holding the thread) resumes a headless tool call with — any JSON
value of any size, type, nesting or unicode, a forged envelope for another call, a failure with a
huge detail — the call ends in a typed envelope (ToolSuccess or ToolFailure with a known code),
never an exception, and what the outcome ledger stores stays within a bound.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

import sitewalk_agent.headless as headless
from sitewalk_agent.ledger import OutcomeLedger
from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

CALL_ID = "call-1"
CONTRACT = TOOL_CONTRACTS["read_local_draft"]
CALL = {"id": CALL_ID, "name": CONTRACT.name, "args": {"inspection_id": "inspection-42"}}
# What one stored outcome may weigh: the largest valid result plus a bounded error.
MAX_STORED = 64_000

text = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)
big_text = st.one_of(text, st.integers(1, 300_000).map(lambda n: "é" * n))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), big_text)
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                            st.dictionaries(text, inner, max_size=5)), max_leaves=40)


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"a": [value]}
    return value


envelopes = st.fixed_dictionaries({
    "ok": st.one_of(st.booleans(), json_values),
    "tool_call_id": st.one_of(st.just(CALL_ID), text),
}, optional={
    "protocol": st.one_of(st.just(1), json_values),
    "tool": st.one_of(st.just(CONTRACT.name), big_text),
    "result": json_values,
    "error": st.one_of(json_values, st.fixed_dictionaries({
        "code": st.sampled_from([c.value for c in ErrorCode]), "message": big_text,
        "detail": st.dictionaries(text, json_values, max_size=5)})),
})
answers = st.one_of(
    json_values,
    envelopes,
    envelopes.map(lambda e: {CALL_ID: e}),  # the SDK's {tool_call_id: value} shape
    st.integers(1, 5000).map(_deep),
    st.fixed_dictionaries({"error": big_text}),
)


def _run(resume: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], Any]:
    monkeypatch.setattr(headless, "interrupt", lambda _request: resume)
    store = InMemoryStore()
    message = asyncio.run(headless.run_headless_call(CONTRACT, dict(CALL), {}, OutcomeLedger(store, "thread-1")))
    stored = store.get(("sitewalk", "tool_outcomes", "thread-1"), CALL_ID)
    return json.loads(str(message.content)), stored


def _assert_typed(envelope: dict[str, Any]) -> None:
    assert envelope["tool_call_id"] == CALL_ID and envelope["tool"] == CONTRACT.name
    if envelope["ok"] is True:
        CONTRACT.result.model_validate(envelope["result"])
    else:
        assert envelope["ok"] is False and ErrorCode(envelope["error"]["code"])
        assert len(envelope["error"]["message"]) <= headless.MAX_MESSAGE


SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=SLOW_OK)
@given(answers)
def test_any_answer_ends_in_a_typed_bounded_envelope(monkeypatch, resume):
    envelope, stored = _run(resume, monkeypatch)
    _assert_typed(envelope)
    assert stored is not None and stored.value["envelope"] == envelope
    assert len(json.dumps(stored.value, ensure_ascii=False)) <= MAX_STORED


def test_a_forged_envelope_for_another_call_is_refused(monkeypatch):
    forged = {"ok": True, "protocol": 1, "tool": CONTRACT.name, "tool_call_id": "someone-elses-call",
              "result": {"found": False, "inspection_id": "inspection-42"}}
    envelope, _ = _run(forged, monkeypatch)
    assert envelope["ok"] is False and envelope["error"]["code"] == ErrorCode.serialization_failed


def test_a_huge_failure_detail_is_not_stored_whole(monkeypatch):
    failure = {"ok": False, "protocol": 1, "tool": "x" * 100_000, "tool_call_id": CALL_ID,
               "error": {"code": "internal", "message": "boom",
                         "detail": {"blob": "é" * 500_000, "call": 1, "code": 2}}}
    envelope, stored = _run(failure, monkeypatch)
    _assert_typed(envelope)
    assert envelope["error"]["code"] == "internal" and envelope["error"]["message"] == "boom"
    assert len(json.dumps(stored.value, ensure_ascii=False)) <= MAX_STORED


def test_a_small_failure_detail_is_kept_whatever_its_keys(monkeypatch):
    detail = {"call": "x", "code": "y", "message": "z", "ünï": [1, {"b": None}]}
    failure = {"ok": False, "tool": CONTRACT.name, "tool_call_id": CALL_ID,
               "error": {"code": "not_found", "message": "no draft", "detail": detail}}
    envelope, _ = _run(failure, monkeypatch)
    assert envelope["error"] == {"code": "not_found", "message": "no draft", "detail": detail}
