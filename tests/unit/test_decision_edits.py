"""Changing a review decision at a timeline step, from a recorded real history (`script: review`, three calls
decided in one resume: two work orders approved, the notice rejected): the step that carries the decisions,
what each call would do on the new branch, the refusals (nothing sent), and the requests a change sends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fake_agent_server import BASE_URL, FakeTransport, RecordingView, counted_registry, sse, state_at
from recorded import load_history

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.screen_feed import ScreenFeed
from sitewalk.session.cancel import Cancellation
from sitewalk.session.parts import DeviceHooks, ScreenHooks, ThreadParts
from sitewalk.session.thread import Thread
from sitewalk.session.travel import TimeTravel
from sitewalk.session.travel.decisions import DecisionEdits, DecisionNotReached
from sitewalk.timeline import InvalidEdit, RunActive, TimelineTree, UnknownCheckpoint
from sitewalk.timeline.decisions import UNREADABLE, decide, effects, order_key, reviewed_step

RECORDED = load_history("review_decided.json")
THREAD = RECORDED["thread_id"]
ENTRIES = {e["checkpoint"]["checkpoint_id"]: e for e in RECORDED["all"]}
BOLT, DRAIN = "Loose bolt on the east rail", "Corroded drain cover"  # scripted_model.REVIEW_SUBJECTS
WRITER = "HeadlessToolsMiddleware.after_model"  # the node that made the review step


def _tree() -> TimelineTree:
    tree = TimelineTree()
    tree.add_page(RECORDED["all"], 100)
    return tree


def _decided_step():
    return next(s for s in _tree().steps() if s.name.kind == "decision")


def test_the_steps_before_the_decisions_name_the_calls_as_their_cards_do():
    """As the review card's title (`ACTION_TITLES`), not the code name: a person reads the timeline too."""
    titles = [s.name.title for s in _tree().steps()]
    assert "Waiting for your approval: raise a work order, raise a work order, message the site manager" in titles
    assert "Decided to raise a work order and raise a work order and message the site manager" in titles


def _reviewed():
    step = _decided_step()
    return reviewed_step(step.id, ENTRIES[step.facts.parent_id], ENTRIES[step.id])


def _by_subject(reviewed, subject):
    return next(c for c in reviewed.calls if c.subject == subject)


def test_the_step_that_answered_the_reviews_is_named_for_the_decisions():
    step = _decided_step()
    assert step.name.title == ("Your decisions: create work order approved, create work order approved, "
                               "notify site manager rejected")
    parent = _tree().facts(step.facts.parent_id)
    assert parent is not None and {i.kind for i in parent.interrupts} == {"tool_approval"}
    assert set(step.name.call_ids) == {i.tool_call_id for i in parent.interrupts}


def test_a_reviewed_step_names_each_call_its_decision_and_its_work_order():
    reviewed = _reviewed()
    assert reviewed.review_id == _decided_step().facts.parent_id
    bolt, drain = _by_subject(reviewed, BOLT), _by_subject(reviewed, DRAIN)
    notice = next(c for c in reviewed.calls if c.name == "notify_site_manager")
    assert (bolt.decided, drain.decided, notice.decided) == ("approved", "approved", "rejected")
    assert bolt.order_id.startswith("WO-") and bolt.order_key.startswith("work-order:inspection-42:loose-bolt")
    assert notice.order_id == "" and bolt.allowed == ("approve", "edit", "reject")


def test_the_browser_computes_the_key_the_server_filed_under():
    bolt = _by_subject(_reviewed(), BOLT)
    assert order_key(bolt, decide(bolt, "approve")) == bolt.order_key  # one rule, shared (contracts)
    urgent = decide(bolt, "edit", json.dumps({**bolt.args, "priority": "urgent"}))
    assert order_key(bolt, urgent) == bolt.order_key  # the priority is not substance
    other = decide(bolt, "edit", json.dumps({**bolt.args, "subject": "Replace the east rail"}))
    assert order_key(bolt, other) not in ("", bolt.order_key)
    assert order_key(bolt, decide(bolt, "reject", reason="wrong rail")) == ""


@pytest.mark.parametrize(("kind", "args", "why"), [
    ("respond", "", "not a decision"),
    ("edit", "{not json", "not JSON"),
    ("edit", "[1, 2]", "must be a JSON object"),
    ("edit", json.dumps({"inspection_id": "inspection-42", "subject": "x", "priority": "whenever"}), "cannot take"),
    ("edit", json.dumps({"inspection_id": "inspection-42", "subject": ""}), "cannot take"),
])
def test_a_decision_that_does_not_fit_is_refused(kind, args, why):
    with pytest.raises(InvalidEdit, match=why):
        decide(_by_subject(_reviewed(), BOLT), kind, args)


def test_a_decision_the_interrupt_does_not_allow_is_refused():
    bolt = _by_subject(_reviewed(), BOLT)
    only = type(bolt)(**{**{f: getattr(bolt, f) for f in bolt.__slots__}, "allowed": ("approve", "reject")})
    with pytest.raises(InvalidEdit, match="allowed: approve, reject"):
        decide(only, "edit", json.dumps(bolt.args))


def test_each_call_says_what_the_new_branch_does_with_it():
    reviewed = _reviewed()
    bolt, drain = _by_subject(reviewed, BOLT), _by_subject(reviewed, DRAIN)
    rejected = {e.tool_call_id: e for e in effects(reviewed, bolt.tool_call_id, decide(bolt, "reject"), {})}
    assert rejected[bolt.tool_call_id].kind == "not_filed" and bolt.order_id in rejected[bolt.tool_call_id].outcome
    assert rejected[drain.tool_call_id].kind == "asked_again" and drain.order_id in rejected[drain.tool_call_id].outcome

    again = decide(bolt, "approve")
    [same] = [e for e in effects(reviewed, bolt.tool_call_id, again, {bolt.order_key: {"id": bolt.order_id}})
              if e.tool_call_id == bolt.tool_call_id]
    assert same.deduplicated and same.order_id == bolt.order_id and "gets it back" in same.outcome

    renamed = decide(bolt, "edit", json.dumps({**bolt.args, "subject": "Replace the east rail"}))
    key = order_key(bolt, renamed)
    for records, kind in (({key: None}, "new"), ({key: UNREADABLE}, "unchecked")):
        [effect] = [e for e in effects(reviewed, bolt.tool_call_id, renamed, records) if e.key == key]
        assert effect.kind == kind and not effect.deduplicated


# --- the session part, against a fake transport serving the recorded history --------------------------------

STATE, RUNS = f"/threads/{THREAD}/state", f"/threads/{THREAD}/runs"
FORK = "1f1fffff-0000-6000-8000-00000000f0f0"


def _review_state(renamed: bool) -> dict[str, Any]:
    """The fork's state after its run: the review step's interrupts again, under new ids."""
    step = _decided_step()
    review = ENTRIES[step.facts.parent_id]
    interrupts = [{**i, "id": "new-" + i["id"][:8]} if renamed else i for i in review["interrupts"]]
    return {**review, "checkpoint": {"checkpoint_ns": "", "checkpoint_id": FORK}, "interrupts": interrupts,
            "tasks": [{"id": f"t{n}", "name": "tools", "interrupts": [i]} for n, i in enumerate(interrupts)]}


def _fake(runs_going: list[Any] | None = None) -> FakeTransport:
    fake = FakeTransport().on("POST", f"/threads/{THREAD}/history", (200, RECORDED["all"]))
    for cid, entry in ENTRIES.items():
        fake.on("POST", state_at(THREAD, cid), (200, entry))
    waiting = _review_state(renamed=True)
    fake.on("POST", state_at(THREAD, FORK), (200, waiting))  # the fork's state: the page is redrawn from it first
    return (fake.on("GET", RUNS, (200, runs_going or []))
            .on("POST", STATE, (200, {"checkpoint": {"checkpoint_ns": "", "checkpoint_id": FORK}}))
            .on("POST", f"{RUNS}/stream",
                sse(("metadata", {"run_id": "r1"}), ("updates", {"__interrupt__": waiting["interrupts"]})),
                sse(("metadata", {"run_id": "r2"}), ("values", {"messages": []})))
            .on("GET", STATE, (200, waiting))
            .on("GET", "/store/items", (200, {"key": "k", "value": {"id": "WO-X"}})))


def _with_edits(fake: FakeTransport, then):
    async def wait(attempt: int) -> None:
        return None

    async def go():
        view = RecordingView()
        client = AgentServerClient(BASE_URL, transport=fake)
        registry, _ = counted_registry()
        parts = ThreadParts.build(client, Thread(THREAD), registry, view, ScreenFeed(view), Cancellation(),
                                  DeviceHooks(wait_for_network=wait), ScreenHooks())
        await parts.timeline.refresh()
        return await then(DecisionEdits(TimeTravel(client, parts)))

    return asyncio.run(go())


def _writes(fake: FakeTransport) -> list[Any]:
    return [*fake.sent("POST", STATE), *fake.sent("POST", f"{RUNS}/stream")]


def test_a_changed_decision_forks_at_the_review_step_and_resumes_the_call_asked_again():
    fake = _fake()
    step = _decided_step()
    bolt = _by_subject(_reviewed(), BOLT)

    async def then(edits):
        return await edits.change(step.id, bolt.tool_call_id, "reject", reason="wrong rail")

    assert _with_edits(fake, then) == FORK
    [fork] = fake.sent("POST", STATE)
    assert fork.json == {"values": None, "as_node": WRITER, "checkpoint": {"checkpoint_id": step.facts.parent_id}}
    run, resume = fake.sent("POST", f"{RUNS}/stream")
    assert run.json["input"] is None and run.json["checkpoint"] == {"checkpoint_id": FORK}
    # the page redrawn from the fork before its run
    read_at = [n for n, r in enumerate(fake.requests) if r.path == state_at(THREAD, "")[:-1]
               and r.json["checkpoint"]["checkpoint_id"] == FORK]
    assert read_at and read_at[0] < next(n for n, r in enumerate(fake.requests) if r.path == f"{RUNS}/stream")
    asked = next(i for i in _review_state(renamed=True)["interrupts"]
                 if i["value"]["tool_call_id"] == bolt.tool_call_id)
    assert resume.json["command"]["resume"] == {asked["id"]: {
        "type": "reject", "message": "wrong rail", "args_revision": 1, "args_hash": asked["value"]["args_hash"]}}


def test_the_preview_lists_the_steps_replaced_and_what_the_decision_does():
    step = _decided_step()
    bolt = _by_subject(_reviewed(), BOLT)

    async def then(edits):
        return await edits.preview(step.id), await edits.preview(step.id, bolt.tool_call_id, "approve")

    bare, chosen = _with_edits(_fake(), then)
    assert bare.effects == [] and bare.restore.target == step.facts.parent_id
    assert step.id in [s.id for s in bare.restore.replaced]  # the decided step stops being live
    [effect] = [e for e in chosen.effects if e.tool_call_id == bolt.tool_call_id]
    assert effect.deduplicated and effect.order_id == "WO-X"  # the mirrored record of its key


@pytest.mark.parametrize("case", ["unknown", "other step", "not reviewed", "bad edit", "run going"])
def test_a_refused_change_sends_nothing(case):
    running = [{"run_id": "r9", "status": "running"}] if case == "run going" else None
    fake = _fake(running)
    step = _decided_step()
    bolt = _by_subject(_reviewed(), BOLT)
    target, call, kind, args = step.id, bolt.tool_call_id, "approve", ""
    if case == "unknown":
        target = "1f0ffff0-0000-6000-8000-000000000000"
    elif case == "other step":
        target = step.facts.parent_id  # the review step itself carries no decision
    elif case == "not reviewed":
        call = "call_nobody"
    elif case == "bad edit":
        kind, args = "edit", json.dumps({**bolt.args, "priority": "whenever"})

    async def then(edits):
        await edits.change(target, call, kind, args)

    expected = RunActive if case == "run going" else UnknownCheckpoint if case == "unknown" else InvalidEdit
    with pytest.raises(expected):
        _with_edits(fake, then)
    assert _writes(fake) == []


def test_an_edited_call_is_read_with_the_args_it_ran_with():
    step = _decided_step()
    review, answered = ENTRIES[step.facts.parent_id], json.loads(json.dumps(ENTRIES[step.id]))
    bolt = _by_subject(_reviewed(), BOLT)
    ran = {**bolt.args, "subject": "Replace the east rail", "priority": "urgent"}
    message = next(m for m in answered["values"]["messages"] if m.get("tool_call_id") == bolt.tool_call_id)
    message["content"] = ("Note: a human reviewer replaced this tool call before it ran. The call recorded in your "
                          "message is the one you produced, not the one that executed. This was intentional and "
                          "authorized. Do not re-issue your original call. Executed instead: create_work_order with "
                          f"arguments {json.dumps(ran)}.\n\nTool response:{message['content']}")
    edited = _by_subject(reviewed_step(step.id, review, answered), BOLT)
    assert edited.decided == "edited" and edited.ran_args == ran and edited.order_id == bolt.order_id
    assert edited.args == bolt.args  # what the model asked, which an approval on the new branch runs


def test_a_fork_that_does_not_ask_about_the_call_again_sends_no_decision():
    bolt = _by_subject(_reviewed(), BOLT)
    others = {**_review_state(renamed=True)}
    others["interrupts"] = [i for i in others["interrupts"] if i["value"]["tool_call_id"] != bolt.tool_call_id]
    others["tasks"] = [t for t in others["tasks"] if t["interrupts"][0] in others["interrupts"]]
    fake = _fake()
    fake.routes = [r for r in fake.routes if (r.method, r.path) != ("GET", STATE)]
    fake.on("GET", STATE, (200, others))

    async def then(edits):
        await edits.change(_decided_step().id, bolt.tool_call_id, "approve")

    with pytest.raises(DecisionNotReached):
        _with_edits(fake, then)
    assert [r.json.get("command") for r in fake.sent("POST", f"{RUNS}/stream")] == [None]  # the fork's run only
