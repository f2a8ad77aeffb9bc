"""Work orders: the external ticket system Sitewalk's agent files into, and its idempotency rule.

A work order is a real-world side effect: rewinding a thread (replay, fork) must never file a
second one. The ticket system here is a table with a UNIQUE business idempotency key, in one of two
ledgers chosen by the environment (`sitewalk_agent.workorders.backend.open_work_orders`): Postgres on the
durable deployment (`SITEWALK_LEDGER_URL`, else a Postgres `DATABASE_URL`: one table every server shares,
`sitewalk_agent.workorders.postgres`), SQLite otherwise (`SITEWALK_WORKORDERS_DB`, `...workorders.db`).

The key rule (`work_order_key`): the same action on the same substance gives the same key,
whichever branch or replay reaches it; a fork that changes the substance gets a new key.

    key = "work-order:{inspection_id}:{subject}:{risk}:{sha256(canonical substance)[:12]}"

The *substance* of a work order is what makes it a different order for the people who act on
it: the inspection, the subject the ConfirmButton names (e.g. `risk-1`), the risk level on the
screen (the RiskBadge), and the findings (the InspectionCard's, as a set: their order on the screen
does not matter). It is read from the screen on record (`ui_spec`) when the inspector confirms.
Not substance: which branch, checkpoint, tool call, screen revision or idempotency key of the
browser's press led there, nor when. So replaying a confirmed press, or forking and confirming
the same screen again, returns the ORIGINAL order (`created: false`, same id); a fork that says
"the risk is critical" first confirms a different order and gets a second one.

The reviewed tool `create_work_order` (`sitewalk_agent.field_actions`, approved by a person before it
runs) files into the same table, keyed by `reviewed_order_key`: the inspection and the subject's
words. A replay or a fork that reaches the same reviewed call, or a retry after `outcome_unknown`,
gets the original order.

Undoing a real action is an explicit compensation: `close_work_order`, a ConfirmButton action
the inspector confirms, recorded on the branch where it happens; the row becomes `closed` with
who and when. Rewinding never closes or deletes an order.

`python -m sitewalk_agent.workorders list` prints the orders of the ledger the environment names, one JSON
object a line.
"""

from __future__ import annotations

from sitewalk_agent.workorders.backend import WorkOrderLedger, ledger_url, open_work_orders
from sitewalk_agent.workorders.db import (
    WorkOrder,
    WorkOrderError,
    WorkOrderNotFound,
    WorkOrders,
    WorkOrderUnavailable,
    default_path,
    latency_s,
    simulated_latency,
)
from sitewalk_agent.workorders.keys import reviewed_order_key, reviewed_substance, substance_of, work_order_key

__all__ = ["WorkOrder", "WorkOrderError", "WorkOrderLedger", "WorkOrderNotFound", "WorkOrderUnavailable", "WorkOrders",
           "default_path", "latency_s", "ledger_url", "open_work_orders", "reviewed_order_key", "reviewed_substance",
           "simulated_latency", "substance_of", "work_order_key"]
