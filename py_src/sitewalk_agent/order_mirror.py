"""Mirror a work order into the Store, where the browser can read it (`sitewalk_shared.contracts.workorders`).

One place for every writer: the ConfirmButton's actions (`sitewalk_agent.actions`), the reviewed
`create_work_order` tool and the reconciliation of a call of unknown outcome (`sitewalk_agent.outcomes`).
The ticket system has the order whatever happens here, so a failed write is logged, not raised.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore

from sitewalk_agent.audit.context import owner_of
from sitewalk_shared.contracts.workorders import mirror_of, work_orders_namespace

__all__ = ["mirror_order"]


async def mirror_order(store: BaseStore | None, config: RunnableConfig | None, order: Mapping[str, object],
                       inspection_id: str | None) -> None:
    """Write the order's public fields under its business key (nothing without a store)."""
    if store is None:
        return
    try:
        await store.aput(work_orders_namespace(owner_of(config)), str(order["key"]), mirror_of(order, inspection_id),
                         index=False)
    except Exception:  # noqa: BLE001 - the ticket system has the order; the preview then says "new"
        logging.getLogger(__name__).exception("work order %s not mirrored into the store", order.get("id"))
