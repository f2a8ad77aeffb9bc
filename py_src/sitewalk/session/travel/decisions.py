"""Change a review decision at a timeline step: a fork whose old branch stays readable.

A step carries decisions when it answered the tool calls its parent, the *review step*, waited on for
review (`timeline.decisions`). Changing one decision:

1. `update_state(review step, values=None, as_node=<the node that made the review step>)`: a fork
   checkpoint (source `update`, parent the review step) that waits to run the same tool calls;
2. a run from it (`input: null`): the review interrupts fire again, under NEW interrupt ids (the task
   ids come from the checkpoint), for the same tool call ids and args (the same args hash);
3. one resume with the new decision for the changed call, by its new interrupt id, checked like any
   decision (`session.reviews`). The other calls of the step are asked again: a decision is never made
   for the inspector on a branch they have not seen.

Why so, as checked on the real server (`langgraph dev`, langgraph 1.2, langchain 1.5 per-call review):
the decisions of one review step are that checkpoint's pending writes, one per task (the tools of one AI
message run as parallel tasks; a task's result shows in the step's `tasks[].result`). A run from the review
step with `command: {resume: {<old interrupt id>: <new decision>}}` and its `checkpoint_id` does not change
anything: the decided task's stored write is replayed, the new decision is ignored (and when every call
had been decided it makes a copy of the old branch). A fork by `update_state` starts the step without
those writes, so the interrupts fire again and the new decision is what runs. The old branch keeps its
decisions and results (its head's state still answers the call as before). When only some calls of the
step had been decided (the others still pending) there is no step carrying the decision yet: the
decision lives as a pending write on the review step, so there is no old branch to keep; the control
appears once the step is complete.

Side effects: a reviewed work order is filed under a business key from the inspection and the subject's
words (`contracts.field_actions`). A changed decision that reaches the same key (approve again, an edit
of the priority) gets the ORIGINAL order back; an edit of the subject is another key, a new order; a
rejection files nothing on the new branch and does not undo the order filed on the old one (closing it is
an explicit compensation). The preview says which, from the ticket system's record mirrored in the Store.

Refused, with nothing changed: a step not loaded or not this thread's (`UnknownCheckpoint`), a step that
carries no decision or a call it did not review, a decision type the interrupt does not allow, edited
arguments that do not fit the tool's contract (`InvalidEdit`), and a run going on (`RunActive`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...base.server_errors import AgentServerError
from ...timeline import InvalidEdit, RestorePreview, TimelineError, UnknownCheckpoint
from ...timeline.decisions import UNREADABLE, DecisionEffect, ReviewedStep, decide, effects, order_key, reviewed_step
from ...timeline.preview import RecordsUnreadable
from ..reviews import pending_reviews
from .replay import TimeTravel

__all__ = ["DecisionEdits", "DecisionNotReached", "DecisionPreview"]


class DecisionNotReached(TimelineError):
    """The fork ran but did not stop at the changed call's review: the decision was not sent."""

    code = "decision_not_reached"


@dataclass(frozen=True, slots=True)
class DecisionPreview:
    restore: RestorePreview  # the steps after the review step that stop being live
    step: ReviewedStep
    effects: list[DecisionEffect]  # empty until a decision is chosen


class DecisionEdits:
    """A review decision changed at a step, on the thread `travel` replays and forks."""

    def __init__(self, travel: TimeTravel) -> None:
        self.travel = travel
        self.client = travel.client
        self.thread_id = travel.thread.id

    async def reviewed(self, checkpoint_id: str) -> ReviewedStep:
        """The decisions a loaded step of this thread carries (refused: not one, or not a step with decisions)."""
        tree = self.travel.timeline.tree
        step = tree.step(checkpoint_id)
        if step is None or step.facts.namespace:
            raise UnknownCheckpoint(checkpoint_id, self.thread_id)
        if step.name.kind != "decision" or not step.facts.parent_id:
            raise InvalidEdit("this step carries no review decision")
        review = await self.travel.state_at(step.facts.parent_id)
        return reviewed_step(checkpoint_id, review, await self.travel.state_at(checkpoint_id))

    async def preview(self, checkpoint_id: str, tool_call_id: str = "", kind: str = "", args_text: str = "",
                      reason: str = "") -> DecisionPreview:
        """What changing a decision at the step replaces, and (given the decision) what it does to each call."""
        step = await self.reviewed(checkpoint_id)
        restore = await self.travel.preview(step.review_id)
        if not kind:
            return DecisionPreview(restore, step, [])
        decision = decide(step.call(tool_call_id), kind, args_text, reason)
        key = order_key(step.call(tool_call_id), decision)
        records = {key: await self._record(key)} if key else {}
        return DecisionPreview(restore, step, effects(step, tool_call_id, decision, records))

    async def change(self, checkpoint_id: str, tool_call_id: str, kind: str, args_text: str = "",
                     reason: str = "") -> str:
        """Fork at the review step with a new decision for one call; returns the fork's checkpoint."""
        step = await self.reviewed(checkpoint_id)
        decision = decide(step.call(tool_call_id), kind, args_text, reason)  # refused before anything is sent
        writer = await self._writer(step.review_id)
        await self.travel.ensure_idle()
        made = await self.client.fork(self.thread_id, step.review_id, None, as_node=writer)
        fork = str(made["checkpoint_id"])
        async with self.travel.conversation.running():
            await self.travel.redraw_from(fork)  # the page shows the new branch, not the old one's later steps
            await self.travel.loop.run(input=None, checkpoint_id=fork)  # the reviews fire again, new ids
            state = await self.client.threads.get_state(self.thread_id)
            review = next((r for r in pending_reviews(state) if r.tool_call_id == tool_call_id), None)
            if review is None:
                await self.travel.reviews.refresh()
                raise DecisionNotReached(f"the new branch did not ask about {tool_call_id} again; nothing was "
                                         "decided on it (the old branch stays)")
            named = {"args_revision": review.args_revision, "args_hash": review.args_hash}
            refused = await self.travel.reviews.submit({review.interrupt_id: {**decision, **named}})
        if refused:
            raise DecisionNotReached(f"{refused[0].code}: {refused[0].message}")
        return fork

    async def _writer(self, review_id: str) -> str:
        """The node that made the review step (its parent's next): the fork is written as that node."""
        tree = self.travel.timeline.tree
        facts = tree.facts(review_id)
        parent = tree.facts(facts.parent_id or "") if facts is not None else None
        nodes: tuple[str, ...] | list[Any] = parent.next if parent is not None else ()
        if not nodes and facts is not None and facts.parent_id:
            nodes = list((await self.travel.state_at(facts.parent_id)).get("next") or [])
        if len(nodes) != 1:
            raise UnknownCheckpoint(review_id, self.thread_id)  # not a step one node made
        return str(nodes[0])

    async def _record(self, key: str) -> Mapping[str, Any] | str | None:
        try:
            return await self.travel.work_order(key)  # the ticket system's record, as the Store mirrors it
        except (RecordsUnreadable, AgentServerError, OSError, TimeoutError):
            return UNREADABLE
