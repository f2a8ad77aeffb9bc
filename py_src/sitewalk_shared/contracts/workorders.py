"""Where the agent mirrors the work orders it filed, for the browser to read through the store API.

The ticket system itself (`sitewalk_agent.workorders`, SQLite) is the server's: the browser cannot
read it. Each time the agent files, finds or closes an order, it writes the order's public fields
into the Agent Server's Store:

    namespace ("users", <owner>, "sitewalk", "work_orders")  (the owner: the signed-in identity or
              `anonymous`; `sitewalk_shared.contracts.store`: the layout both servers' store APIs keep as it is)
    key       the order's business idempotency key, e.g. work-order:inspection-42:risk-1:none:1a2b3c4d5e6f
    value     {key, id, status, subject, inspection_id, thread_id, checkpoint_id, created_at, closed_at}

So the restore preview can say, for an action it would reach again, "already created: WO-… — a
replay returns it" from the real record (`GET /store/items?namespace=users.anonymous.sitewalk.work_orders&key=…`),
not from a guess. Shared by the agent (writes) and the browser (reads); plain data, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from .store import user_namespace

__all__ = ["MIRRORED", "NAMESPACE", "mirror_of", "work_orders_namespace"]

NAMESPACE = ("sitewalk", "work_orders")
MIRRORED = ("key", "id", "status", "subject", "thread_id", "checkpoint_id", "created_at", "closed_at")


def work_orders_namespace(owner: str | None = None) -> tuple[str, ...]:
    """The mirror's namespace; `owner` is the authenticated identity (None without sign-in)."""
    return user_namespace(owner, *NAMESPACE)


def mirror_of(order: Mapping[str, object], inspection_id: str | None) -> dict[str, object]:
    """The public fields of a ticket-system row (no substance, no who-closed-it), as the mirror keeps them."""
    return {**{field: order.get(field) for field in MIRRORED}, "inspection_id": inspection_id}
