"""Server-side authorization of the actions a ConfirmButton asks for, and their business effects.

A catalog is not authorization. The browser only *asks*: it resumes the run's
`ui_action_request` interrupt with {type: "ui_action", action, identity, element_id,
idempotency_key}. The agent checks the request against its own state — the screen on record
(`ui_spec`) has a ConfirmButton with that element id naming that action, the identity is that
screen's — and only then performs the business action.

- `create_work_order` files an order in the ticket system (`sitewalk_agent.workorders`) under the
  business key of the screen's substance: a replay or a fork that reaches the same order gets the
  ORIGINAL one back (`created: false`, recorded on the new branch); pressed again on the same branch
  it is `replayed` and changes nothing. A fork that changed the substance files a new order. An open
  order gets a "Close work order" button on the screen.
- `close_work_order` is the compensation: the inspector confirms it, the order's row becomes
  `closed` (who, when, on which thread and checkpoint), and it is recorded on this branch.
  Rewinding never closes anything.
- Other actions are recorded in the Store by the browser's idempotency key: a key recorded already
  is a replay, answered with the recorded outcome, and nothing else happens.
- Each order filed, found again or closed is mirrored into the Store (`sitewalk_shared.contracts.workorders`:
  its key, id and status under ("sitewalk", "work_orders")), so the browser's restore preview can check
  an action it would reach again against the real record.

Each action record names who pressed (`by`): the authenticated user when the server has sign-in
(`sitewalk_agent.audit.context.actor`, from the run's auth context, never from the request); without
sign-in, the inspector's name the device gave, marked `authenticated: false`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, NotRequired, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.store.base import BaseStore

from sitewalk_agent.audit.context import Actor, actor
from sitewalk_agent.order_mirror import mirror_order
from sitewalk_agent.workorders import (
    WorkOrderError,
    WorkOrderLedger,
    open_work_orders,
    substance_of,
    work_order_key,
)

__all__ = ["ActionLedger", "action_request", "answer_press", "authorize", "close_button", "expected_actions",
           "unwrap_press"]

NAMESPACE = ("sitewalk", "ui_actions")
MAX_KEY = 200
CREATE, CLOSE = "create_work_order", "close_work_order"


def _mapping(value: object) -> Mapping[str, object]:
    """A JSON object read by key (the screen, its identity, its elements): {} for a missing one."""
    return value if isinstance(value, Mapping) else {}


def _listed(value: object) -> Iterable[object]:
    """A JSON array read in order (children, the branch's actions): () for a missing one."""
    return value if isinstance(value, list) else ()


def expected_actions(ui_spec: Mapping[str, object] | None) -> dict[str, dict[str, str]]:
    """element id -> {action, subject, label} for each ConfirmButton of the screen on record."""
    out: dict[str, dict[str, str]] = {}
    for key, element in _mapping(_mapping(ui_spec).get("elements")).items():
        if isinstance(element, dict) and element.get("type") == "ConfirmButton":
            props = element.get("props") or {}
            out[key] = {"action": str(props.get("action", "")), "subject": str(props.get("subject", "")),
                        "label": str(props.get("label", ""))}
    return out


def authorize(ui_spec: Mapping[str, object] | None, request: object) -> str | None:
    """None when the request is allowed by the state; otherwise why not (one sentence)."""
    if not isinstance(request, dict) or request.get("type") != "ui_action":
        return "not a ui_action request"
    identity = _mapping(_mapping(ui_spec).get("identity"))
    asked: dict[str, object] = request["identity"] if isinstance(request.get("identity"), dict) else {}
    if not identity.get("tool_call_id") or asked.get("tool_call_id") != identity.get("tool_call_id"):
        return "the action is for a screen that is not the current one"
    expected = expected_actions(ui_spec).get(str(request.get("element_id") or ""))
    if expected is None:
        return f"the screen has no button {request.get('element_id')!r}"
    if request.get("action") != expected["action"]:
        return f"button {request.get('element_id')!r} asks for {expected['action']!r}, not {request.get('action')!r}"
    key = request.get("idempotency_key")
    if not isinstance(key, str) or not key or len(key) > MAX_KEY:
        return "the action has no idempotency key"
    return None


class ActionLedger:
    """Where actions take effect: the ticket system for work orders; the Store (shared by every branch)
    for the outcome of other actions, by the browser's idempotency key."""

    def __init__(self, store: BaseStore | None = None, thread_id: str | None = None,
                 orders: WorkOrderLedger | None = None) -> None:
        self._store = store if thread_id else None
        self._memory: dict[str, dict[str, object]] = {}
        self._namespace = (*NAMESPACE, str(thread_id or "").replace(".", "_"))
        self.thread_id = thread_id
        self._orders = orders

    @property
    def orders(self) -> WorkOrderLedger:
        """The ticket system (`open_work_orders` when none was given): opened on use, so a misconfigured
        ledger is a failed press (`WorkOrderError`), not a failed run."""
        if self._orders is None:
            self._orders = open_work_orders()
        return self._orders

    async def get(self, key: str) -> dict[str, object] | None:
        if self._store is None:
            return self._memory.get(key)
        item = await self._store.aget(self._namespace, key)
        return dict(item.value) if item is not None else None

    async def put(self, key: str, record: Mapping[str, object]) -> None:
        if self._store is None:
            self._memory[key] = dict(record)
            return
        await self._store.aput(self._namespace, key, dict(record))

    async def mirror(self, order: Mapping[str, object], inspection_id: str | None) -> None:
        """The order's key, id and status where the browser can read them (`order_mirror`)."""
        try:
            config = get_config()
        except RuntimeError:  # outside a graph run (unit tests of answer_press)
            config = {}
        await mirror_order(self._store, config, order, inspection_id)


def action_request(ui_spec: Mapping[str, object] | None) -> dict[str, object]:
    """The interrupt that asks the browser for a ConfirmButton press on the screen on record."""
    spec = _mapping(ui_spec)
    return {"type": "ui_action_request", "identity": spec.get("identity"),
            "actions": [{"element_id": key, **value} for key, value in expected_actions(spec).items()]}


def unwrap_press(resume: object) -> object:
    """The press from a resume value: bare, or keyed by interrupt id as the SDK sends it."""
    if isinstance(resume, dict) and resume.get("type") != "ui_action" and len(resume) == 1:
        return next(iter(resume.values()))
    return resume


Answer = tuple[dict[str, Any], str]
"""The state update (LangGraph's, for the node to return) and what the agent says."""


class Asked(TypedDict):
    """What a press asked, as kept in the state."""

    action: str | None
    element_id: str | None
    idempotency_key: str | None


class ActionRecord(Asked):
    """An authorized press on this branch (`ui_actions`), with its outcome once it has one."""

    identity: object  # the screen's identity {message_id, tool_call_id, revision}
    subject: str
    by: Actor
    result: NotRequired[dict[str, object]]


def _clipped(press: Mapping[str, object], key: str) -> str | None:
    value = press.get(key)
    return value[:MAX_KEY] if isinstance(value, str) else None


def _asked(request: object) -> Asked:
    """What a press asked, as kept in the state: strings of at most MAX_KEY characters (a forged press
    may send anything), None for any other type."""
    press = _mapping(request) if isinstance(request, dict) else {}
    return {"action": _clipped(press, "action"), "element_id": _clipped(press, "element_id"),
            "idempotency_key": _clipped(press, "idempotency_key")}


def _inspection_of(state: Mapping[str, object]) -> str | None:
    found = state.get("inspection_id")
    return found if isinstance(found, str) else None


async def answer_press(state: Mapping[str, object], request: object, ledger: ActionLedger) -> Answer:
    """Authorize a press against the state, perform it once; the state update and what the agent says.

    A refused press, and a replay on this branch, change nothing but `ui_action_result` and say nothing ("").
    """
    ui_spec = _mapping(state.get("ui_spec"))
    reason = authorize(ui_spec, request)
    base = _asked(request)
    if reason or not isinstance(request, dict):  # (a request that is not an object has its reason)
        return {"ui_action_result": {**base, "status": "refused", "reason": reason}}, ""
    button = expected_actions(ui_spec)[request["element_id"]]
    record: ActionRecord = {**base, "identity": ui_spec.get("identity"), "subject": button["subject"],
                            "by": actor(_run_config(), state, request.get("inspector"))}
    try:
        if request["action"] == CREATE:
            return await _create(state, record, ledger)
        if request["action"] == CLOSE:
            return await _close(state, record, ledger)
    except (WorkOrderError, sqlite3.Error) as exc:  # the ticket system refused: say why, change nothing
        return {"ui_action_result": {**record, "status": "failed", "reason": f"work orders: {exc}"}}, ""
    return await _other(state, record, ledger)


def _run_config() -> RunnableConfig:
    try:
        return get_config()
    except RuntimeError:  # outside a graph run (unit tests of answer_press)
        return {}


def _place(ledger: ActionLedger) -> dict[str, str | None]:
    """The thread and the checkpoint this action runs from (the one before its effect)."""
    configurable = _run_config().get("configurable") or {}
    checkpoint = (configurable.get("checkpoint_map") or {}).get("") or configurable.get("checkpoint_id")
    return {"thread_id": ledger.thread_id or configurable.get("thread_id"), "checkpoint_id": checkpoint}


def _on_branch(state: Mapping[str, object], action: str, order_key: str) -> bool:
    return any(isinstance(a, dict) and a.get("action") == action and (a.get("result") or {}).get("key") == order_key
               for a in _listed(state.get("ui_actions")))


async def _create(state: Mapping[str, object], record: ActionRecord, ledger: ActionLedger) -> Answer:
    ui_spec = _mapping(state.get("ui_spec"))
    substance = substance_of(_inspection_of(state), record["subject"] or record["element_id"] or "", ui_spec)
    key = work_order_key(substance)
    order, created = await ledger.orders.acreate(key, subject=substance["subject"],
                                                 substance=json.dumps(substance, sort_keys=True), **_place(ledger))
    await ledger.mirror(order, _inspection_of(state))
    record = {**record, "result": {"work_order": order["id"], "key": key, "created": created,
                                   "status": order["status"]}}
    if not created and _on_branch(state, CREATE, key):  # pressed again here: answer, change nothing
        return {"ui_action_result": {**record, "status": "replayed"}}, ""
    # New on this branch (a fork, a replay, another thread of the inspection): recorded here, with the
    # order the ticket system answered; `created` says whether this press filed it.
    update: dict[str, object] = {"ui_actions": [*_listed(state.get("ui_actions")), record],
                                 "ui_action_result": {**record, "status": "done"}}
    if order["status"] == "open":
        update["ui_spec"] = close_button(ui_spec, order["id"], add=True)
    said = f"Work order {order['id']} created." if created else f"Work order {order['id']} already exists."
    return update, said


async def _close(state: Mapping[str, object], record: ActionRecord, ledger: ActionLedger) -> Answer:
    closed_by = str(record["by"]["identity"] or "the inspector")
    order, closed = await ledger.orders.aclose(record["subject"], closed_by=closed_by, **_place(ledger))
    await ledger.mirror(order, _inspection_of(state))
    record = {**record, "result": {"work_order": order["id"], "key": order["key"], "closed": closed,
                                   "status": order["status"], "closed_by": order["closed_by"]}}
    update = {"ui_actions": [*_listed(state.get("ui_actions")), record],
              "ui_action_result": {**record, "status": "done" if closed else "replayed"},
              "ui_spec": close_button(_mapping(state.get("ui_spec")), order["id"], add=False)}
    said = f"Work order {order['id']} closed." if closed else f"Work order {order['id']} was closed already."
    return update, said


def _next_revision(identity: Mapping[str, object]) -> int:
    revision = identity.get("revision") or 0
    if not isinstance(revision, int | float | str):
        raise TypeError(f"the screen on record has a revision that is not a number: {revision!r}")
    return int(revision) + 1


def close_button(ui_spec: Mapping[str, object], order_id: str, add: bool) -> Mapping[str, object]:
    """The screen with (or without) the ConfirmButton that closes `order_id`, as a new revision."""
    element_id = f"close-{order_id.lower()}"
    elements = dict(_mapping(ui_spec.get("elements")))
    root = str(ui_spec.get("root") or "")
    if root not in elements or (element_id in elements) == add:
        return ui_spec
    parent = _mapping(elements[root])
    children = [c for c in _listed(parent.get("children")) if c != element_id]
    if add:
        elements[element_id] = {"type": "ConfirmButton", "props": {
            "label": f"Close work order {order_id}", "action": CLOSE, "variant": "danger", "subject": order_id},
            "children": []}
        children.append(element_id)
    else:
        del elements[element_id]
    elements[root] = {**parent, "children": children}
    identity = dict(_mapping(ui_spec.get("identity")))
    identity["revision"] = _next_revision(identity)
    return {**ui_spec, "elements": elements, "identity": identity}


async def _other(state: Mapping[str, object], record: ActionRecord, ledger: ActionLedger) -> Answer:
    """An action without an external system: recorded by the browser's key, done once (authorized: the
    key and the action are strings)."""
    key = str(record["idempotency_key"])
    recorded = await ledger.get(key)
    if recorded is not None:  # a replay: answer what was done, change nothing
        return {"ui_action_result": {**recorded, "status": "replayed"}}, ""
    what = record["subject"] or record["element_id"]
    reference = f"{record['action']}:{state.get('inspection_id') or 'unknown'}:{what}"
    record = {**record, "result": {"reference": reference}}
    await ledger.put(key, record)
    update = {"ui_actions": [*_listed(state.get("ui_actions")), record],
              "ui_action_result": {**record, "status": "done"}}
    return update, f"Done: {str(record['action']).replace('_', ' ')} ({reference})."
