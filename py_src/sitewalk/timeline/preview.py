"""What a restore replaces, shown before the inspector confirms it (article 000 §8).

Going back to a step makes the steps after it on the live path stop being live, and the external
actions among them (work orders, other performed actions: `ui_actions` in their checkpoints' values)
are not undone. For each action the preview says whether doing it again would be deduplicated: the
server files an action under its business key (`work-order:inspection-42:risk-1:…`), so an action
that carries one returns the original when the replay or fork reaches it again.

`check_actions` checks each work order against the ticket system's real record, which the agent
mirrors into the Store (`sitewalk_shared.contracts.workorders`): "already created: WO-… — a replay returns
it" when the record is there, "new" when it is not. An action it could not check keeps what the
checkpoint says (`checked` False).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sitewalk_shared.errors import SitewalkError

from ..base.server_errors import AgentServerError
from .errors import UnknownCheckpoint
from .tree import Step, TimelineTree

__all__ = ["ExternalAction", "LookupOrder", "RecordsUnreadable", "RestorePreview", "check_actions", "restore_preview"]

WORK_ORDER = "create_work_order"
LookupOrder = Callable[[str], Awaitable[Mapping[str, Any] | None]]
"""A work order's business key -> its record (id, status, ...), or None when the ticket system has none."""


class RecordsUnreadable(SitewalkError, LookupError):
    """The records cannot be seen from here (e.g. a server whose store API scopes namespaces per user)."""


@dataclass(frozen=True, slots=True)
class ExternalAction:
    checkpoint_id: str  # the step that performed it
    action: str  # create_work_order, notify_site_manager, ...
    reference: str  # the business reference it was filed under
    idempotency_key: str
    deduplicated: bool  # doing it again returns the original instead of a second one
    checked: bool = False  # checked against the ticket system's record (not only what the checkpoint says)
    order_id: str = ""  # the record's id (WO-…), when checked and found
    order_status: str = ""  # open | closed, when checked and found

    @property
    def label(self) -> str:
        if self.action == WORK_ORDER:
            return f"Work order {self.order_id or self.reference}"
        return f"{self.action.replace('_', ' ')} {self.reference}".strip()

    @property
    def outcome(self) -> str:
        """What reaching it again does, in the inspector's words."""
        if self.checked and self.order_id:
            closed = " (closed since)" if self.order_status == "closed" else ""
            return f"already created: {self.order_id}{closed} — a replay returns it"
        if self.checked:
            return "new: reaching it again files a new work order"
        if self.deduplicated:
            return "if reached again, the existing one is returned (no duplicate)"
        return "would be done again"


@dataclass(frozen=True, slots=True)
class RestorePreview:
    target: str  # the step restored to
    replaced: list[Step]  # steps that stop being live, newest first
    actions: list[ExternalAction]  # external actions among them, oldest first
    complete: bool  # False when part of the replaced path is not loaded yet (older pages)
    typed: tuple[str, ...] = ()  # what the inspector will be asked to type instead (a denied permission)

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


async def check_actions(preview: RestorePreview, lookup: LookupOrder) -> RestorePreview:
    """The preview with each work order checked against its real record (`lookup` by business key).

    A lookup that fails leaves that action as the checkpoint says it (unchecked): the preview is still
    shown, and nothing is claimed that was not read."""
    checked: list[ExternalAction] = []
    for action in preview.actions:
        if action.action != WORK_ORDER or not action.idempotency_key:
            checked.append(action)
            continue
        try:
            record = await lookup(action.idempotency_key)
        except (AgentServerError, OSError, TimeoutError, RecordsUnreadable):  # say only what the checkpoint says
            checked.append(action)
            continue
        checked.append(replace(action, checked=True, deduplicated=record is not None,
                               order_id=str((record or {}).get("id") or ""),
                               order_status=str((record or {}).get("status") or "")))
    return replace(preview, actions=checked)
