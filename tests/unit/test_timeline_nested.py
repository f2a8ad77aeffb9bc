"""The site walk's own steps in the timeline, from a recorded real history with a subgraph namespace
(tests/unit/fixtures/history/record_site_walk.py): the walk answered yes and 3, asked again between its
questions and answered 7, then that answer changed to 12 with update_state."""

from __future__ import annotations

import asyncio

from recorded import load_history

from sitewalk.session.history import TimelineFeed
from sitewalk.session.thread import Thread
from sitewalk.timeline import TimelineTree, facts_of, name_step
from sitewalk.timeline.nested import checkpoint_object

RECORDED = load_history("site_walk.json")
NS = RECORDED["namespace"]
GRAPH = [e for page in RECORDED["pages"] for e in page]
WALK = [e for page in RECORDED["nested_pages"] for e in page]


def _tree():
    tree = TimelineTree()
    for page in RECORDED["pages"]:
        tree.add_page(page, 8)
    for page in RECORDED["nested_pages"]:
        tree.nested.add_page(NS, page, 3)
    return tree


def _walk_titles(tree, head=None):
    """Each step that hosts walk steps: (its title, the walk's titles under it, newest first)."""
    return [(s.name.title, [n.name.title for n in s.nested]) for s in tree.steps(head) if s.nested]


def _branch(tree, ending):
    return next(b for b in tree.branches() if b.title.endswith(ending))


def test_the_graph_pages_never_hold_the_walk_and_name_its_namespace():
    assert all(e["checkpoint"]["checkpoint_ns"] == "" for e in GRAPH)
    assert {e["checkpoint"]["checkpoint_ns"] for e in WALK} == {NS}
    tree = _tree()
    assert tree.namespaces == {NS}  # read from the tasks of the graph's steps that run the walk's node
    assert len(tree.nested) == len(WALK) == 7 and NS in tree.nested.exhausted


def test_the_first_walk_is_nested_under_the_step_it_ran_from_on_the_old_branch():
    tree = _tree()
    old = _branch(tree, "— 3")
    assert not old.live
    (host, walk), = _walk_titles(tree, old.head)
    assert host == "Waiting for your answer: How many bolts are corroded?"
    assert walk == ["Asked: How many bolts are corroded? — 3", "Asked: Is the handrail secure? — yes",
                    "Waiting for your answer: Is the handrail secure?", "Started the site walk"]


def test_the_fork_between_the_questions_keeps_the_first_answer_and_asks_only_the_second():
    tree = _tree()
    seven = _branch(tree, "— 7")
    titles = _walk_titles(tree, seven.head)
    assert titles[0] == ("Replayed from here", ["Asked: How many bolts are corroded? — 7",
                                                 "Asked again: How many bolts are corroded?"])
    # the step shared with the old branch shows the walk as this branch went on with it: no "— 3" here
    assert titles[1][1] == ["Asked: Is the handrail secure? — yes", "Waiting for your answer: Is the handrail secure?",
                            "Started the site walk"]
    asked = [n for _, walk in titles for n in walk if n.startswith(("Asked:", "Asked again:"))]
    assert sum("handrail" in n for n in asked) == 1  # the first question was asked once


def test_a_changed_answer_shows_under_the_fork_it_started_on_the_live_branch():
    tree = _tree()
    live = tree.branches()[0]
    assert live.live and live.head == RECORDED["head"]
    assert live.title == "Asked: How many bolts are corroded? — 12 (changed)"
    titles = _walk_titles(tree)
    assert titles[0][1] == ["Asked: How many bolts are corroded? — 12 (changed)"]
    # stored by the server under the earlier step; shown on the branch it made (metadata.parents names it)
    changed = next(e for e in WALK if e["metadata"]["source"] == "update")
    host = tree.host(changed["checkpoint"]["checkpoint_id"])
    assert host != changed["metadata"]["parents"][""] and host in [s.id for s in tree.steps()]
    assert "— 3" not in str(titles) and "— 7" not in str(titles)


def test_every_branch_stays_readable_with_its_own_answers():
    tree = _tree()
    endings = sorted(b.title.rsplit("—", 1)[-1].strip() for b in tree.branches())
    assert endings == ["12 (changed)", "3", "7"]
    for branch in tree.branches():
        answers = [n for _, walk in _walk_titles(tree, branch.head) for n in walk if n.startswith("Asked:")]
        assert answers[0].startswith("Asked: How many bolts") and branch.title.endswith(answers[0].rsplit("—")[-1])


def test_a_walk_step_names_what_was_answered_and_what_it_waits_on():
    by_id = {e["checkpoint"]["checkpoint_id"]: facts_of(e) for e in WALK}
    first = next(f for f in by_id.values() if f.next == ("ask_corroded_bolts",) and f.source == "loop")
    assert first.namespace == NS and first.parent_step and [a.text for a in first.answers] == ["yes"]
    assert [i.question for i in first.interrupts] == ["How many bolts are corroded?"]
    name = name_step(first, by_id[first.parent_id])
    assert (name.title, name.kind) == ("Asked: Is the handrail secure? — yes", "answer")
    assert checkpoint_object(first, "t")["checkpoint_map"] == {"": first.parent_step, NS: first.id}


def test_the_graph_step_that_decided_the_walk_is_named_for_people():
    tree = _tree()
    said = [s.name.title for s in tree.steps()]
    assert "Walked the site with you" in said


def test_the_feed_reads_the_walks_pages_only_as_far_back_as_the_graph_steps_loaded():
    class Client:
        def __init__(self):
            self.calls = []
            self.threads = self

        async def get_history(self, thread_id, limit=10, before=None, checkpoint_ns=""):
            self.calls.append((checkpoint_ns, before))
            entries = WALK if checkpoint_ns else GRAPH
            ids = [e["checkpoint"]["checkpoint_id"] for e in entries]
            start = 0 if before is None else ids.index(before) + 1
            return entries[start:start + limit]

    class View:
        def timeline(self, shown):
            self.shown = shown

    client, view = Client(), View()
    feed = TimelineFeed(client, Thread(RECORDED["thread_id"], "inspection"), view, page_size=8)
    asyncio.run(feed.refresh())
    first = [c for c in client.calls if c[0]]
    assert first and len(first) < 3  # the newest page of 8 graph steps needs one or two walk pages, not all
    asyncio.run(feed.open_branch(_branch(feed.tree, "— 12 (changed)").head))
    while feed.tree.cursor and not feed.tree.exhausted:
        asyncio.run(feed.older())
    assert len(feed.tree.nested) == len(WALK)
    assert len({c for c in client.calls if c[0]}) == len([c for c in client.calls if c[0]])  # no page read twice


def test_the_walks_namespace_is_found_in_either_servers_task_shape():
    entry = {"checkpoint": {"checkpoint_id": "c2", "checkpoint_ns": ""}, "parent_checkpoint": None, "next": [NS],
             "metadata": {"source": "loop", "step": 3}, "values": {}}
    ns = f"{NS}:4f1c0b2e-0000-0000-0000-000000000000"
    dev = {"name": NS, "interrupts": [], "checkpoint": {"thread_id": "t", "checkpoint_ns": ns}, "state": None}
    aegra = {"name": NS, "interrupts": [], "checkpoint": None, "state": {"configurable": {"thread_id": "t",
                                                                                          "checkpoint_ns": ns}}}
    plain = {"name": "tools", "interrupts": [], "checkpoint": None, "state": None}
    for task in (dev, aegra):
        assert facts_of({**entry, "tasks": [task, plain]}).subgraphs == (NS,)
    assert facts_of({**entry, "tasks": [plain]}).subgraphs == ()
