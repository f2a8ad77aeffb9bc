"""Field actions: the server-side business tools an inspector must review before they run.

`create_work_order`, `notify_site_manager`, `archive_photos` and `delete_photos` run on the agent
server (they are not headless) and are gated by per-call review (`sitewalk_agent.review`).

- work orders: the real ticket system, `sitewalk_agent.workorders` (Postgres on the durable deployment,
  else SQLite: `open_work_orders`; a UNIQUE business key), the same one the ConfirmButton's action files
  into. The key is `reviewed_order_key`: the inspection and the subject's words. A second call with the
  same key (a replay or a fork that reaches the same reviewed call, a retry) gets the ORIGINAL order back
  (`created: false`, `replayed: true`), and the database holds one row. The call waits at most
  `SITEWALK_WORKORDERS_TIMEOUT_MS`; past that its outcome is unknown and it is reconciled by key
  before any retry (`sitewalk_agent.outcomes`). Filed or found, the order is mirrored into the Store
  for the browser (`sitewalk_agent.order_mirror`), as the ConfirmButton's are.
- The other systems are stood in for by the Agent Server's store:
  notifications `("sitewalk", "field", "notifications")`, key `notify:<inspection_id>:<sha of text>`;
  photo archive `("sitewalk", "field", "photo_archive")`, key `<inspection_id>:<photo_id>`;
  deletions `("sitewalk", "field", "photo_deletions")`, same key.

The order rule "archive before delete" lives HERE, in `delete_photos`: it reads the archive's own
records (the business state, not an approval) and refuses, with a typed `invalid_args` failure whose
`detail.rule` is `archive_before_delete`, any photo that is not archived. So it holds whatever
order the reviewer answers the cards in: approving the delete first only gets the refusal.

Each tool answers with Sitewalk's typed envelope (`ToolSuccess` / `ToolFailure`) as JSON.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import Awaitable, Callable, Mapping

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse
from langchain.tools import ToolRuntime
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.config import get_config
from langgraph.store.base import BaseStore
from langgraph.types import Command

from sitewalk_agent.headless import failure, tool_message
from sitewalk_agent.order_mirror import mirror_order
from sitewalk_agent.outcomes import (
    CallOutcome,
    OutcomeState,
    order_timeout_s,
    outcomes_note,
    reconcile,
    settled,
    unknown_entry,
    unresolved,
)
from sitewalk_agent.workorders import (
    WorkOrder,
    WorkOrderError,
    WorkOrderLedger,
    open_work_orders,
    reviewed_order_key,
    reviewed_substance,
)
from sitewalk_shared.contracts.envelope import ErrorCode, ToolSuccess, unknown_outcome
from sitewalk_shared.contracts.field_actions import NotifyArgs, PhotosArgs, WorkOrderArgs

__all__ = ["FIELD_TOOLS", "ORDER_RULE", "FieldActionsMiddleware", "field_tools", "work_order_key"]

NAMESPACE = ("sitewalk", "field")
ORDER_RULE = "archive_before_delete"


def work_order_key(inspection_id: str, subject: str) -> str:
    """The idempotency key of a reviewed work order: one order per inspection and subject."""
    return reviewed_order_key(reviewed_substance(inspection_id, subject))


def _call(runtime: ToolRuntime, name: str) -> dict[str, str]:
    """The call as the envelope names it: {id, name}."""
    return {"id": runtime.tool_call_id or "", "name": name}


def _done(call: dict[str, str], result: dict[str, object]) -> ToolMessage:
    envelope = ToolSuccess(tool=call["name"], tool_call_id=call["id"], result=result)
    return tool_message(call, envelope.model_dump(mode="json"), True)


def _refused(call: dict[str, str], code: ErrorCode, message: str, **detail: object) -> ToolMessage:
    return tool_message(call, failure(call, code, message, **detail).model_dump(mode="json"), False)


def _no_store(call: dict[str, str]) -> ToolMessage:
    return _refused(call, ErrorCode.unavailable, "the store is not available; nothing was done")


async def _record_once(store: BaseStore, kind: str, key: str, value: dict[str, object]
                       ) -> tuple[dict[str, object], bool]:
    """Put `value` under `key` unless it is there; returns (record, replayed)."""
    namespace = (*NAMESPACE, kind)
    found = await store.aget(namespace, key)
    if found is not None:
        return dict(found.value), True
    await store.aput(namespace, key, value)
    return value, False


def _place(config: RunnableConfig | None) -> dict[str, str | None]:
    """The thread, and the checkpoint the call runs from, for the order's row."""
    configurable = (config or {}).get("configurable") or {}
    checkpoint = (configurable.get("checkpoint_map") or {}).get("") or configurable.get("checkpoint_id")
    return {"thread_id": configurable.get("thread_id"), "checkpoint_id": checkpoint}


def _order_result(order: Mapping[str, object], created: bool, inspection_id: str) -> dict[str, object]:
    return {"work_order": order["id"], "key": order["key"], "created": created, "replayed": not created,
            "status": order["status"], "subject": order["subject"], "priority": order.get("priority"),
            "inspection_id": inspection_id}


async def _file(orders: WorkOrderLedger, args: WorkOrderArgs, runtime: ToolRuntime,
                unknown: dict[str, CallOutcome]) -> tuple[WorkOrder, bool]:
    """Reconcile by key first when an earlier call of this key has an unknown outcome, else file."""
    substance = reviewed_substance(args.inspection_id, args.subject)
    key = reviewed_order_key(substance)
    if unknown:
        found = await orders.aget(key)
        if found is not None:
            return found, False
    return await orders.acreate(key, subject=args.subject, priority=args.priority,
                                substance=json.dumps(substance, sort_keys=True, ensure_ascii=False),
                                **_place(runtime.config))


@tool(args_schema=WorkOrderArgs)
async def create_work_order(inspection_id: str, subject: str, runtime: ToolRuntime,
                            priority: str = "normal") -> ToolMessage | Command[str]:
    """Raise a repair work order for an inspection. Reviewed by the inspector before it runs."""
    call = _call(runtime, "create_work_order")
    key = work_order_key(inspection_id, subject)
    unknown = unresolved(runtime.state or {}, key)
    timeout = order_timeout_s()
    try:
        args = WorkOrderArgs(inspection_id=inspection_id, subject=subject, priority=priority)
        order, created = await asyncio.wait_for(_file(open_work_orders(), args, runtime, unknown), timeout)
    except TimeoutError:  # the request went out; whether it landed is unknown: say so, never failed
        envelope = unknown_outcome(call["name"], call["id"], f"the work-order system did not answer within "
                                   f"{timeout:g} s: the order may or may not exist; it is looked up by its key "
                                   "before any retry", idempotency_key=key)
        return Command(update={"messages": [tool_message(call, envelope, False)],
                               "call_outcomes": {call["id"]: unknown_entry(call["name"], key, inspection_id)}})
    except (WorkOrderError, sqlite3.Error) as exc:  # the system refused or is broken: nothing was filed
        return _refused(call, ErrorCode.unavailable, f"the work-order system refused: {exc}")
    await mirror_order(runtime.store, runtime.config, order, inspection_id)  # for the restore preview
    answer = _done(call, _order_result(order, created, inspection_id))
    if not unknown:
        return answer
    how = f"the same key answered call {call['id']}"  # earlier calls of this key: settled, one order
    return Command(update={"messages": [answer],
                           "call_outcomes": {cid: settled(entry, order, how) for cid, entry in unknown.items()}})


@tool(args_schema=NotifyArgs)
async def notify_site_manager(inspection_id: str, message: str, runtime: ToolRuntime) -> ToolMessage:
    """Send the site manager a message about an inspection. Reviewed by the inspector before it runs."""
    call = _call(runtime, "notify_site_manager")
    if runtime.store is None:
        return _no_store(call)
    key = f"notify:{inspection_id}:{hashlib.sha256(message.encode()).hexdigest()[:16]}"
    record: dict[str, object] = {"idempotency_key": key, "inspection_id": inspection_id, "message": message}
    sent, replayed = await _record_once(runtime.store, "notifications", key, record)
    return _done(call, {**sent, "replayed": replayed})


@tool(args_schema=PhotosArgs)
async def archive_photos(inspection_id: str, photo_ids: list[str], runtime: ToolRuntime) -> ToolMessage:
    """Copy photos of an inspection to the archive. Must run before delete_photos for the same photos."""
    call = _call(runtime, "archive_photos")
    if runtime.store is None:
        return _no_store(call)
    for photo in photo_ids:
        await _record_once(runtime.store, "photo_archive", f"{inspection_id}:{photo}",
                           {"inspection_id": inspection_id, "photo_id": photo, "archive_ref": f"archive:{photo}"})
    return _done(call, {"inspection_id": inspection_id, "archived": photo_ids})


@tool(args_schema=PhotosArgs)
async def delete_photos(inspection_id: str, photo_ids: list[str], runtime: ToolRuntime) -> ToolMessage:
    """Delete photos of an inspection from the device set. Refused for any photo not archived first."""
    call = _call(runtime, "delete_photos")
    if runtime.store is None:
        return _no_store(call)
    keys = {photo: f"{inspection_id}:{photo}" for photo in photo_ids}
    missing = [p for p, k in keys.items() if await runtime.store.aget((*NAMESPACE, "photo_archive"), k) is None]
    if missing:  # the archive's own records decide, not the order the reviews were answered in
        return _refused(call, ErrorCode.invalid_args, f"photos not archived yet: {', '.join(missing)}; "
                        "archive them first", rule=ORDER_RULE, not_archived=missing)
    for photo, key in keys.items():
        await _record_once(runtime.store, "photo_deletions", key, {"inspection_id": inspection_id, "photo_id": photo})
    return _done(call, {"inspection_id": inspection_id, "deleted": photo_ids})


FIELD_TOOLS: tuple[BaseTool, ...] = (create_work_order, notify_site_manager, archive_photos, delete_photos)


def field_tools() -> list[BaseTool]:
    return list(FIELD_TOOLS)


class FieldActionsMiddleware(AgentMiddleware[OutcomeState]):
    """Registers the field actions with a `create_agent` agent (review them with `ReviewMiddleware`), and
    reconciles the calls whose answer never came before the model decides anything (`outcomes`)."""

    state_schema = OutcomeState

    def __init__(self) -> None:
        super().__init__()
        self.tools = field_tools()

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
                               ) -> ModelResponse | ExtendedModelResponse:
        """Reconcile the unknown calls, tell the model where they stand, and record what was found. Done here,
        not in a node of its own, so a thread's steps (the timeline) are the same with or without it."""
        state: dict[str, object] = dict(request.state)
        known = await reconcile(state, request.runtime.store, get_config()) if unresolved(state) else {}
        note = outcomes_note(state, known)
        if note is not None:
            system = request.system_message
            text = f"{system.content}\n\n{note}" if system is not None and isinstance(system.content, str) else note
            request = request.override(system_message=SystemMessage(content=text))
        response = await handler(request)
        if not known:
            return response
        return ExtendedModelResponse(model_response=response, command=Command(update={"call_outcomes": known}))
