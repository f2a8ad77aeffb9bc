"""The site walk against the real agent server: the session answers its two questions, the timeline nests
its steps, a fork between the questions asks only the second again, values change at a step, and each
refusal changes nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
from memory_storage import MemoryStore
from walk_doubles import Cards, View, soon

from sitewalk.agentserver.client import AgentServerClient
from sitewalk.audit_trail import read_audit_trail
from sitewalk.headless import HeadlessToolRegistry, draft_key, read_local_draft
from sitewalk.session import DeviceHooks, InspectionSession, ScreenHooks
from sitewalk.session.travel import TimeTravel
from sitewalk.session.travel.edits import StepEdits
from sitewalk.timeline import InvalidEdit, UnknownCheckpoint

DRAFT = {"inspection_id": "inspection-78", "site": "Pier 3", "inspector": "Ana Ortiz", "findings": ["Loose bolt"],
         "risk": "high"}


def _walk(agent_server, then):
    async def go():
        registry = HeadlessToolRegistry()
        drafts = MemoryStore({draft_key("inspection-78"): json.dumps(DRAFT)})
        registry.register("read_local_draft", read_local_draft(drafts))
        cards, view = Cards(), View()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=soon),
                                        screen_hooks=ScreenHooks(question_cards=cards))
            await session.start("inspection-78", note="script: site-walk")
            return await then(session, client, cards, view)

    return asyncio.run(go())


async def _card(client, session):
    state = await client.threads.get_state(session.thread_id)
    return state["values"]["ui_spec"]["elements"]["card"]["props"]


async def _answer_both(session, cards, first="yes", second=3):
    await session.show_questions()
    await session.answer(cards.pending[0]["interrupt_id"], first)
    await session.answer(cards.pending[0]["interrupt_id"], second)


async def _walk_records(client, thread_id):
    """The thread's site-walk audit records, read as the app reads them; the chain must be whole."""
    trail = await read_audit_trail(client, thread_id)
    assert trail.problem is None, trail.problem
    return [r for r in trail.records if r["kind"] == "site_walk"]


def _nested(view, ending):
    return next(n for s in view.shown.steps for n in s.nested if n.name.title.endswith(ending))


def test_the_session_answers_both_questions_and_a_bad_answer_sends_nothing(agent_server):
    async def then(session, client, cards, view):
        await session.show_questions()
        first = cards.pending[0]
        count = len(await client.threads.get_history(session.thread_id, limit=1000))
        refused = await session.answer(first["interrupt_id"], "perhaps")
        assert refused is not None and refused.code == "invalid_answer" and cards.refused[-1][1] == "invalid_answer"
        assert len(await client.threads.get_history(session.thread_id, limit=1000)) == count  # nothing sent
        assert await session.answer(first["interrupt_id"], "yes") is None
        second = cards.pending[0]
        stale = await session.answer(first["interrupt_id"], "no")  # the first question is answered already
        assert stale is not None and stale.code == "already_answered"
        await session.answer(second["interrupt_id"], "4")
        (walk,) = await _walk_records(client, session.thread_id)
        assert walk["detail"] == "Is the handrail secure? yes; How many bolts are corroded? 4"
        assert walk["checkpoint_id"] and walk["reviewer"]["display_name"] == "Ana Ortiz"
        return first, second, cards.pending, await _card(client, session), view.shown

    first, second, after, card, shown = _walk(agent_server, then)
    assert (first["question"], first["kind"]) == ("Is the handrail secure?", "yes_no")
    assert (second["question"], second["kind"]) == ("How many bolts are corroded?", "number")
    assert after == [] and card["findings"] == ["Loose bolt", "Handrail secure: yes", "Corroded bolts: 4"]
    (host,) = [s for s in shown.steps if s.nested]
    assert [n.name.title for n in host.nested][:2] == ["Asked: How many bolts are corroded? — 4",
                                                      "Asked: Is the handrail secure? — yes"]


def test_a_fork_between_the_questions_asks_only_the_second_and_the_old_branch_stays(agent_server):
    async def then(session, client, cards, view):
        await _answer_both(session, cards)
        edits = StepEdits(TimeTravel(session.client, session.parts))
        between = _nested(view, "— yes")
        assert edits.preview(between.id).replaced  # the steps after the walk stop being live
        assert await edits.ask_again(between.id) == "replayed"
        asked = list(cards.pending)
        await session.answer(asked[0]["interrupt_id"], 7)
        live = await _card(client, session)
        old = next(b for b in view.shown.branches if not b.live)
        await session.parts.timeline.open_branch(old.head)
        old_answers = [n.name.title for s in view.shown.steps for n in s.nested if n.name.kind == "answer"]
        return asked, live, old_answers

    asked, live, old_answers = _walk(agent_server, then)
    assert [q["question_id"] for q in asked] == ["corroded_bolts"]  # not the handrail again
    assert live["findings"] == ["Loose bolt", "Handrail secure: yes", "Corroded bolts: 7"]
    assert old_answers == ["Asked: How many bolts are corroded? — 3", "Asked: Is the handrail secure? — yes"]


def test_values_change_at_a_step_and_a_value_that_does_not_fit_changes_nothing(agent_server):
    async def then(session, client, cards, view):
        await _answer_both(session, cards)
        edits = StepEdits(TimeTravel(session.client, session.parts))
        bolts = _nested(view, "— 3")
        count = len(await client.threads.get_history(session.thread_id, limit=1000))
        with pytest.raises(InvalidEdit):
            await edits.change_answer(bolts.id, "lots")
        with pytest.raises(UnknownCheckpoint):
            await edits.change_answer("1f0ffff0-0000-6000-8000-000000000000", 2)
        assert len(await client.threads.get_history(session.thread_id, limit=1000)) == count
        await edits.change_answer(bolts.id, 12)
        changed = await _card(client, session)
        old, new = await _walk_records(client, session.thread_id)  # the old branch's record stays
        assert [[a["answer"] for a in r["answers"]] for r in (old, new)] == [[True, 3], [True, 12]]
        assert cards.pending == []  # changed without being asked
        timeline = session.parts.timeline
        while not any(s.name.title == "Read your draft" for s in timeline.tree.steps()):
            await timeline.older()
        read = next(s for s in timeline.tree.steps() if s.name.title == "Read your draft")
        with pytest.raises(InvalidEdit):
            await edits.change_result(read.id, json.dumps({"site": "no inspector"}))
        await edits.change_result(read.id, json.dumps({**DRAFT, "site": "Pier 5 (corrected)"}))
        return changed, await _card(client, session), [b.title for b in view.shown.branches], cards.pending

    changed, corrected, branches, asked = _walk(agent_server, then)
    assert changed["findings"][-1] == "Corroded bolts: 12"
    assert corrected["site"] == "Pier 5 (corrected)" and corrected["findings"] == ["Loose bolt"]
    assert branches[0] == "Read your draft (changed)"
    assert [q["question_id"] for q in asked] == ["handrail_secure"]  # the new branch walks the site anew


def test_asking_again_between_the_questions_leaves_the_page_as_a_reopen_shows_it(agent_server):
    """A run from the walk's own checkpoint redraws the page from the graph's step the walk ran from."""
    from fake_agent_server import PageView

    async def go():
        registry = HeadlessToolRegistry()
        registry.register("read_local_draft", read_local_draft(MemoryStore({draft_key("inspection-78"):
                                                                           json.dumps(DRAFT)})))
        cards, view = Cards(), PageView()
        async with AgentServerClient(agent_server) as client:
            session = InspectionSession(client, registry, view, device_hooks=DeviceHooks(wait_for_network=soon),
                                        screen_hooks=ScreenHooks(question_cards=cards))
            await session.start("inspection-78", note="script: site-walk")
            await _answer_both(session, cards)
            between = next(n for s in view.checkpoints.steps for n in s.nested if n.name.title.endswith("— yes"))
            done = view.transcript()
            await StepEdits(TimeTravel(session.client, session.parts)).ask_again(between.id)
            await session.answer(cards.pending[0]["interrupt_id"], 7)
            again = PageView()
            await InspectionSession(client, registry, again).reopen(session.thread_id)
            return done, view, again

    done, view, again = asyncio.run(go())
    assert view.transcript() == again.transcript()
    assert view.on_screen == again.on_screen
    assert "Corroded bolts: 7" in view.on_screen["elements"]["card"]["props"]["findings"]
    said = [text for _, text in view.transcript()]
    assert any("Corroded bolts: 3" in text for _, text in done)  # the old branch's summary, gone after
    assert not any("Corroded bolts: 3" in text for text in said)
    assert len([text for text in said if "Corroded bolts: 7" in text]) == 1
