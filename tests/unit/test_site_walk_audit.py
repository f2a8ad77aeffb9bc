"""The site walk in the audit trail: a finished walk is one `site_walk` record with its questions and answers
and who answered; a refused second call is a failed tool call; a changed answer on a fork is a new record on
the new branch while the old one stays; the chain stays whole throughout."""

from __future__ import annotations

import asyncio

from graphs_for_tests import in_memory_graph
from test_site_walk_twice import walk_twice

from sitewalk.audit_trail import AuditTrail as ShownTrail
from sitewalk_agent.audit import FIELDS, GENESIS, HEAD_KEY, args_hash, audit_namespace, verify_chain
from sitewalk_agent.site_walk import WALK_NODE, WALK_TOOL

USER = {"identity": "ana", "display_name": "Ana Ortiz"}


def _items(graph, thread: str, owner: str | None = None) -> list[tuple[str, dict]]:
    return [(i.key, i.value) for i in graph.store.search(audit_namespace(thread, owner), limit=1000)]


def _records(items) -> list[dict]:
    return [value for key, value in sorted(items) if key != HEAD_KEY]


def _walks(items) -> list[dict]:
    return [r for r in _records(items) if r["kind"] == "site_walk"]


def test_a_walk_leaves_one_record_with_its_answers_and_who_answered_and_the_chain_verifies():
    config = {"configurable": {"thread_id": "walk-audit", "langgraph_auth_user": USER}}
    graph = in_memory_graph()
    asyncio.run(walk_twice(graph, config, {"handrail_secure": "no", "corroded_bolts": 3}))
    items = _items(graph, "walk-audit", owner="ana")
    assert verify_chain(items) is None
    (walk,) = _walks(items)
    walked, refused = [c for m in graph.get_state(config).values["messages"]
                       for c in getattr(m, "tool_calls", None) or [] if c["name"] == WALK_TOOL]
    assert set(FIELDS) <= set(walk) and walk["tool_call_id"] == walked["id"] and walk["tool_name"] == WALK_TOOL
    assert walk["thread_id"] == "walk-audit" and walk["checkpoint_id"] and walk["task_id"] == "inspection-42"
    assert walk["args_hash"] == args_hash({"inspection_id": "inspection-42"})
    assert walk["reviewer"] == {**USER, "authenticated": True} and walk["outcome"] == "answered"
    assert [(a["question"], a["answer"]) for a in walk["answers"]] == [
        ("Is the handrail secure?", False), ("How many bolts are corroded?", 3)]
    assert walk["detail"] == "Is the handrail secure? no; How many bolts are corroded? 3"
    # the refused second call: a failed tool call of its own, with the typed code
    (second,) = [r for r in _records(items) if r["tool_call_id"] == refused["id"]]
    assert second["kind"] == "tool_call" and second["outcome"] == "failed:one_walk_at_a_time"
    # the app's panel row says what the walk was and what was answered
    row = next(r for r in ShownTrail("walk-audit", (), _records(items)).rows() if r["tool_call_id"] == walked["id"])
    assert row["what"] == "site walk" and "How many bolts are corroded? 3" in row["outcome"]


def test_a_changed_answer_on_a_fork_is_a_new_record_on_the_new_branch_and_the_old_one_stays():
    config = {"configurable": {"thread_id": "walk-fork"}}
    graph = in_memory_graph()
    asyncio.run(walk_twice(graph, config))
    (before,) = _walks(_items(graph, "walk-fork"))
    made = asyncio.run(_change_second_answer(graph, config, 7))
    items = _items(graph, "walk-fork")
    assert verify_chain(items) is None
    old, new = _walks(items)
    assert old == before  # untouched
    assert [a["answer"] for a in old["answers"]] == [True, 3] and [a["answer"] for a in new["answers"]] == [True, 7]
    assert new["seq"] > old["seq"] and new["tool_call_id"] == old["tool_call_id"] and new["prev_hash"] != GENESIS
    # the old walk ran from the step the branches share; the new one from the fork's own step, on the live branch
    assert made["configurable"]["checkpoint_map"][""] == old["checkpoint_id"]
    live = asyncio.run(_live_branch(graph, config))
    assert new["checkpoint_id"] in live and live[new["checkpoint_id"]] == "fork"


async def _live_branch(graph, config) -> dict[str, str]:
    """The checkpoint ids of the thread's live branch (head back to its first step), each with its source."""
    ids, state = {}, await graph.aget_state(config)
    while state is not None and state.config:
        ids[state.config["configurable"]["checkpoint_id"]] = state.metadata.get("source")
        state = await graph.aget_state(state.parent_config) if state.parent_config else None
    return ids


async def _change_second_answer(graph, config, value):
    """What `session.travel.edits.change_answer` does on the server: write the changed answer at the walk's step
    before the second question (as that question's node) and run on from there."""
    walk = {"configurable": {"thread_id": config["configurable"]["thread_id"], "checkpoint_ns": WALK_NODE}}
    before = [s async for s in graph.aget_state_history(walk) if s.next == ("ask_corroded_bolts",)][0]
    kept = before.values["answers"]
    changed = {**kept[0], "question_id": "corroded_bolts", "question": "How many bolts are corroded?",
               "kind": "number", "answer": value}
    made = await graph.aupdate_state(before.config, {"answers": [*kept, changed]}, as_node="ask_corroded_bolts")
    await graph.ainvoke(None, made)
    assert not (await graph.aget_state(config)).interrupts, "nothing asked again"
    return made

