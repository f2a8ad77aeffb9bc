"""Change a value at a step, or go back between two questions: forks that keep the old branch readable.

- `ask_again` (a site-walk step between its two questions): a run from the subgraph's own checkpoint,
  sent whole (`checkpoint_ns` + `checkpoint_map`). The graph resumes from the step the walk ran from,
  the walk from this checkpoint: the questions after it are asked again, the ones before are not.
- `change_answer` (a site-walk step that answered a question): `update_state` at the walk's checkpoint
  before the answer, as the node that asked it, with the answers so far plus the changed one; the run
  goes on from the checkpoint it made without asking that question again.
- `change_result` (a step where this device answered a headless tool, e.g. "Read your draft"): the
  tool's message written anew at the step before it, as the node that wrote it (`tools`), its result
  checked by the tool's contract; the agent carries on from there with the changed answer.

Why these calls, as checked on the real server (`langgraph dev`, langgraph 1.2): a subgraph compiled with
`checkpointer=True` keeps its checkpoints under its namespace, and each one's checkpoint object (in the
history of that namespace) carries a `checkpoint_map` naming the graph's checkpoint it ran from. A run
given that whole object starts the graph from the mapped checkpoint (a `fork` checkpoint: the old branch
stays) and the subgraph from its own: only the questions after it are asked. The article's way,
`update_state(subgraph config)` then a run from the checkpoint it returns, works the same (it goes
through the map too) but writes an extra `update` checkpoint under the *old* graph step, so it is used
only when a value changes. Given only the subgraph checkpoint's id, the server looks in the graph's own
namespace: the state is empty and the run fails (`EmptyInputError`), nothing changes. All of it needs
the walk to run in a node (see `sitewalk_agent.site_walk`): for a subgraph called from inside a tool,
langgraph finds no subgraph at that namespace and refuses the update ("Subgraph tools not found").

Each checks first and changes nothing when refused: the step must be loaded and one of this thread's
(`UnknownCheckpoint`), no run may be going (`RunActive`), and the new value must fit (`InvalidEdit`).
"""

from __future__ import annotations

import json
from typing import Any

from sitewalk_shared.contracts.questions import InvalidAnswer, parse_answer
from sitewalk_shared.contracts.tools import TOOL_CONTRACTS

from ...timeline import InvalidEdit, RestorePreview, UnknownCheckpoint, checkpoint_object, restore_preview
from ...timeline.facts import StepFacts
from ...typed_value import typed_object
from .replay import NOTHING_TO_REPLAY, TimeTravel

__all__ = ["StepEdits"]


class StepEdits:
    """The site walk's steps and a device's answers changed, on the thread `travel` replays and forks."""

    def __init__(self, travel: TimeTravel) -> None:
        self.travel = travel
        self.client = travel.client
        self.thread_id = travel.thread.id

    def preview(self, checkpoint_id: str) -> RestorePreview:
        """What going back to a site-walk step replaces: the live steps after the step the walk ran from."""
        tree = self.travel.timeline.tree
        return restore_preview(tree, self.thread_id, self._host(checkpoint_id))

    async def ask_again(self, checkpoint_id: str) -> str:
        """Run again from a site-walk step: 'replayed', or 'nothing' when the walk had ended there."""
        facts = self._nested(checkpoint_id)
        await self.travel.ensure_idle()
        if not facts.next:
            self.travel.timeline.notice(NOTHING_TO_REPLAY)
            return "nothing"
        await self.travel.run_from(checkpoint=checkpoint_object(facts, self.thread_id))
        return "replayed"

    async def change_answer(self, checkpoint_id: str, raw: object) -> str:
        """Change the answer given at a site-walk step; returns the checkpoint the change made."""
        facts = self._nested(checkpoint_id)
        before = self.travel.timeline.tree.nested.facts(facts.parent_id or "")
        if not facts.answers or before is None or not before.next:
            raise UnknownCheckpoint(checkpoint_id, self.thread_id)  # not a step where a question was answered
        said = facts.answers[-1]
        try:
            value = parse_answer(said.kind, raw)
        except InvalidAnswer as error:
            raise InvalidEdit(f"{said.question}: {error}") from error
        kept = [{"question_id": a.question_id, "question": a.question, "kind": a.kind, "answer": a.answer}
                for a in before.answers]
        changed = {"question_id": said.question_id, "question": said.question, "kind": said.kind, "answer": value}
        await self.travel.ensure_idle()
        where = checkpoint_object(before, self.thread_id)
        made = dict((await self.client.threads.update_state(
            self.thread_id, {"answers": [*kept, changed]}, as_node=before.next[0], checkpoint=where))["checkpoint"])
        # Aegra may answer without the map: the graph resumes where the walk's step before ran from
        made["checkpoint_map"] = made.get("checkpoint_map") or {**where["checkpoint_map"],
                                                                 before.namespace: made["checkpoint_id"]}
        await self.travel.run_from(checkpoint=made)
        return str(made["checkpoint_id"])

    async def change_result(self, checkpoint_id: str, text: str) -> str:
        """Change what this device answered for a headless tool at a step; returns the fork's checkpoint."""
        step = self.travel.timeline.tree.step(checkpoint_id)
        last = step.facts.last if step is not None else None
        if step is None or last is None or last.type != "tool" or last.tool_name not in TOOL_CONTRACTS \
                or not step.facts.parent_id or step.facts.namespace:
            raise UnknownCheckpoint(checkpoint_id, self.thread_id)
        result = _result(last.tool_name, text)
        state = await self.travel.state_at(checkpoint_id)
        message = next(m for m in state["values"].get("messages") or [] if m.get("id") == last.id)
        envelope = {"ok": True, "protocol": 1, "tool": last.tool_name, "tool_call_id": last.tool_call_id,
                    "result": result}
        edited = {**message, "content": json.dumps(envelope, ensure_ascii=False, separators=(",", ":")),
                  "status": "success"}
        return await self.travel.fork(step.facts.parent_id, {"messages": [edited]}, step.node)

    def _nested(self, checkpoint_id: str) -> StepFacts:
        self._host(checkpoint_id)
        facts = self.travel.timeline.tree.nested.facts(checkpoint_id)
        assert facts is not None  # _host found it
        return facts

    def _host(self, checkpoint_id: str) -> str:
        host = self.travel.timeline.tree.host(checkpoint_id)
        if host is None:
            raise UnknownCheckpoint(checkpoint_id, self.thread_id)
        return host


def _result(tool: str, text: str) -> dict[str, Any]:
    """The edited result, checked by the tool's contract (InvalidEdit saying what does not fit)."""
    return typed_object(text, "the answer", tool, TOOL_CONTRACTS[tool].result)
