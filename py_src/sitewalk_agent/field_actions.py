"""Field actions: the server-side business tools an inspector must review before they run.

`create_work_order`, `notify_site_manager`, `archive_photos` and `delete_photos` run on the agent
server (they are not headless) and are gated by per-call review (`sitewalk_agent.review`). Their
real effect is recorded in the Agent Server's store, which stands in for the external systems:

- work orders: namespace `("sitewalk", "field", "work_orders")`, key = the idempotency key
  `work-order:<inspection_id>:<subject slug>`. A second call with the same key (a replay, a retry
  after `outcome_unknown`) gets the recorded order back (`replayed: true`), never a second one.
  Seam: `sitewalk_agent.workorders` (the SQLite ticket system with a UNIQUE key, used by the
  ConfirmButton's action) is not called yet; `create_work_order`'s `_record_once` is the one place
  to switch to `WorkOrders().acreate(key, ...)`.
- notifications: `("sitewalk", "field", "notifications")`, key `notify:<inspection_id>:<sha of text>`.
- photo archive: `("sitewalk", "field", "photo_archive")`, key `<inspection_id>:<photo_id>`.
- deletions: `("sitewalk", "field", "photo_deletions")`, same key.

The order rule "archive before delete" lives HERE, in `delete_photos`: it reads the archive's own
records (the business state, not an approval) and refuses, with a typed `invalid_args` failure whose
`detail.rule` is `archive_before_delete`, any photo that is not archived. So it holds whatever
order the reviewer answers the cards in: approving the delete first only gets the refusal.

Each tool answers with Sitewalk's typed envelope (`ToolSuccess` / `ToolFailure`) as JSON.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, tool
from pydantic import BaseModel, Field

from sitewalk.contracts.envelope import ErrorCode, ToolSuccess
from sitewalk_agent.headless import failure, tool_message

__all__ = ["FIELD_TOOLS", "ORDER_RULE", "FieldActionsMiddleware", "field_tools", "work_order_key"]

NAMESPACE = ("sitewalk", "field")
ORDER_RULE = "archive_before_delete"


class WorkOrderArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64, description="The inspection the order belongs to.")
    subject: str = Field(min_length=1, max_length=200, description="What must be repaired, in a few words.")
    priority: str = Field("normal", pattern="^(low|normal|high|urgent)$", description="low, normal, high or urgent.")


class NotifyArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64)
    message: str = Field(min_length=1, max_length=1000, description="What the site manager is told.")


class PhotosArgs(BaseModel):
    inspection_id: str = Field(min_length=1, max_length=64)
    photo_ids: list[str] = Field(min_length=1, max_length=50, description="The photos concerned.")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "order"


def work_order_key(inspection_id: str, subject: str) -> str:
    """The idempotency key of a work order: one order per inspection and subject."""
    return f"work-order:{inspection_id}:{_slug(subject)}"


def _call(runtime: ToolRuntime, name: str) -> dict[str, Any]:
    return {"id": runtime.tool_call_id or "", "name": name}


def _done(call: dict[str, Any], result: dict[str, Any]) -> ToolMessage:
    envelope = ToolSuccess(tool=call["name"], tool_call_id=call["id"], result=result)
    return tool_message(call, envelope.model_dump(mode="json"), True)


def _refused(call: dict[str, Any], code: ErrorCode, message: str, **detail: Any) -> ToolMessage:
    return tool_message(call, failure(call, code, message, **detail).model_dump(mode="json"), False)


def _no_store(call: dict[str, Any]) -> ToolMessage:
    return _refused(call, ErrorCode.unavailable, "the work-order store is not available; nothing was done")


async def _record_once(store: Any, kind: str, key: str, value: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Put `value` under `key` unless it is there; returns (record, replayed)."""
    namespace = (*NAMESPACE, kind)
    found = await store.aget(namespace, key)
    if found is not None:
        return dict(found.value), True
    await store.aput(namespace, key, value)
    return value, False


@tool(args_schema=WorkOrderArgs)
async def create_work_order(inspection_id: str, subject: str, runtime: ToolRuntime,
                            priority: str = "normal") -> ToolMessage:
    """Raise a repair work order for an inspection. Reviewed by the inspector before it runs."""
    call = _call(runtime, "create_work_order")
    if runtime.store is None:
        return _no_store(call)
    key = work_order_key(inspection_id, subject)
    record = {"idempotency_key": key, "inspection_id": inspection_id, "subject": subject, "priority": priority,
              "tool_call_id": call["id"]}
    order, replayed = await _record_once(runtime.store, "work_orders", key, record)
    return _done(call, {**order, "replayed": replayed})


@tool(args_schema=NotifyArgs)
async def notify_site_manager(inspection_id: str, message: str, runtime: ToolRuntime) -> ToolMessage:
    """Send the site manager a message about an inspection. Reviewed by the inspector before it runs."""
    call = _call(runtime, "notify_site_manager")
    if runtime.store is None:
        return _no_store(call)
    key = f"notify:{inspection_id}:{hashlib.sha256(message.encode()).hexdigest()[:16]}"
    record = {"idempotency_key": key, "inspection_id": inspection_id, "message": message}
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


class FieldActionsMiddleware(AgentMiddleware):
    """Registers the field actions with a `create_agent` agent (review them with `ReviewMiddleware`)."""

    def __init__(self) -> None:
        super().__init__()
        self.tools = field_tools()
