"""What a restore replaces, shown before the inspector confirms it (article 000 §8).

Going back to a step makes the steps after it on the live path stop being live, and the external
actions among them (work orders, other performed actions: `ui_actions` in their checkpoints' values)
are not undone. For each action the preview says whether doing it again would be deduplicated: the
server files an action under its business reference (`work-order:inspection-42:risk-1`), so an
action that carries one returns the original when the replay or fork reaches it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UnknownCheckpoint
from .tree import Step, TimelineTree

__all__ = ["ExternalAction", "RestorePreview", "restore_preview"]


@dataclass(frozen=True, slots=True)
class ExternalAction:
    checkpoint_id: str  # the step that performed it
    action: str  # create_work_order, notify_site_manager, ...
    reference: str  # the business reference it was filed under
    idempotency_key: str
    deduplicated: bool  # doing it again returns the original instead of a second one

    @property
    def label(self) -> str:
        if self.action == "create_work_order":
            return f"Work order {self.reference}"
        return f"{self.action.replace('_', ' ')} {self.reference}".strip()


@dataclass(frozen=True, slots=True)
class RestorePreview:
    target: str  # the step restored to
    replaced: list[Step]  # steps that stop being live, newest first
    actions: list[ExternalAction]  # external actions among them, oldest first
    complete: bool  # False when part of the replaced path is not loaded yet (older pages)

    @property
    def changes_anything(self) -> bool:
        return bool(self.replaced)


def restore_preview(tree: TimelineTree, thread_id: str, target: str) -> RestorePreview:
    """The live steps after `target` and their external actions (raises UnknownCheckpoint)."""
    if target not in tree or tree.live_head is None:
        raise UnknownCheckpoint(target, thread_id)
    kept = set(tree.path(target))
    live = tree.steps(tree.live_head)
    replaced = [step for step in live if step.id not in kept]
    actions: list[ExternalAction] = []
    for step in reversed(replaced):
        parent = tree.facts(step.facts.parent_id or "")
        before = parent.action_count if parent else 0
        if step.facts.action_count > before and step.facts.last_action:
            action, key, reference = step.facts.last_action
            actions.append(ExternalAction(step.id, action, reference, key, bool(reference)))
    # The path back from the live head must reach a step the target shares, or pages are missing.
    complete = not replaced or (replaced[-1].facts.parent_id or "") in kept
    return RestorePreview(target, replaced, actions, complete)
