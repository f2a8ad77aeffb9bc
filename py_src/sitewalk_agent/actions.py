"""Server-side authorization of the actions a ConfirmButton asks for.

A catalog is not authorization. The browser only *asks*: it resumes the run's
`ui_action_request` interrupt with {type: "ui_action", action, identity, element_id,
idempotency_key}. The agent checks the request against its own state — the screen on record
(`ui_spec`) has a ConfirmButton with that element id naming that action, the identity is that
screen's, and the key is new — and only then performs the business action and records it in the
Store. A request whose key was recorded already is a replay: the recorded outcome is answered
again and nothing else happens.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ActionLedger", "action_request", "answer_press", "authorize", "expected_actions", "unwrap_press",
           "work_order_id"]

NAMESPACE = ("sitewalk", "ui_actions")
WORK_ORDERS = ("sitewalk", "work_orders")
MAX_KEY = 200


def expected_actions(ui_spec: dict[str, Any] | None) -> dict[str, dict[str, str]]:
    """element id -> {action, subject, label} for each ConfirmButton of the screen on record."""
    out: dict[str, dict[str, str]] = {}
    for key, element in ((ui_spec or {}).get("elements") or {}).items():
        if isinstance(element, dict) and element.get("type") == "ConfirmButton":
            props = element.get("props") or {}
            out[key] = {"action": str(props.get("action", "")), "subject": str(props.get("subject", "")),
                        "label": str(props.get("label", ""))}
    return out


def authorize(ui_spec: dict[str, Any] | None, request: Any) -> str | None:
    """None when the request is allowed by the state; otherwise why not (one sentence)."""
    if not isinstance(request, dict) or request.get("type") != "ui_action":
        return "not a ui_action request"
    identity = (ui_spec or {}).get("identity") or {}
    asked: dict[str, Any] = request["identity"] if isinstance(request.get("identity"), dict) else {}
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


def work_order_id(inspection_id: str | None, subject: str, element_id: str) -> str:
    """The business key of a work order: the same inspection and subject give the same order."""
    return f"work-order:{inspection_id or 'unknown'}:{subject or element_id}"


class ActionLedger:
    """Idempotency keys already used, with their outcome, in the Store (shared by every branch)."""

    def __init__(self, store: Any = None, thread_id: str | None = None) -> None:
        self._store = store if thread_id else None
        self._memory: dict[str, dict[str, Any]] = {}
        self._namespace = (*NAMESPACE, str(thread_id or "").replace(".", "_"))

    async def get(self, key: str) -> dict[str, Any] | None:
        if self._store is None:
            return self._memory.get(key)
        item = await self._store.aget(self._namespace, key)
        return dict(item.value) if item is not None else None

    async def put(self, key: str, record: dict[str, Any]) -> None:
        if self._store is None:
            self._memory[key] = record
            return
        await self._store.aput(self._namespace, key, record)

    async def perform(self, name: str, order_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The business action itself (here: file the work order), keyed by its business id."""
        if self._store is not None:
            existing = await self._store.aget(WORK_ORDERS, order_id.replace(".", "_"))
            if existing is not None:
                return {"work_order": order_id, "created": False}
            await self._store.aput(WORK_ORDERS, order_id.replace(".", "_"), record)
        return {"work_order": order_id, "created": True}


def action_request(ui_spec: dict[str, Any] | None) -> dict[str, Any]:
    """The interrupt that asks the browser for a ConfirmButton press on the screen on record."""
    spec = ui_spec or {}
    return {"type": "ui_action_request", "identity": spec.get("identity"),
            "actions": [{"element_id": key, **value} for key, value in expected_actions(spec).items()]}


def unwrap_press(resume: Any) -> Any:
    """The press from a resume value: bare, or keyed by interrupt id as the SDK sends it."""
    if isinstance(resume, dict) and resume.get("type") != "ui_action" and len(resume) == 1:
        return next(iter(resume.values()))
    return resume


async def answer_press(state: dict[str, Any], request: Any, ledger: ActionLedger) -> tuple[dict[str, Any], str]:
    """Authorize a press against the state, perform it once; the state update and what the agent says.

    A refused press, and a replay of a recorded key, change nothing and say nothing ("").
    """
    ui_spec = state.get("ui_spec") or {}
    reason = authorize(ui_spec, request)
    base = {k: request.get(k) for k in ("action", "element_id", "idempotency_key")} if isinstance(request, dict) else {}
    if reason:
        return {"ui_action_result": {**base, "status": "refused", "reason": reason}}, ""
    key = request["idempotency_key"]
    recorded = await ledger.get(key)
    if recorded is not None:  # a replay: answer what was done, change nothing
        return {"ui_action_result": {**recorded, "status": "replayed"}}, ""
    button = expected_actions(ui_spec)[request["element_id"]]
    reference = _reference(request, button, state.get("inspection_id"))
    record = {**base, "identity": ui_spec.get("identity"), "subject": button["subject"]}
    result = await ledger.perform(request["action"], reference, record)
    record = {**record, "result": result}
    await ledger.put(key, record)
    update = {"ui_actions": [*(state.get("ui_actions") or []), record],
              "ui_action_result": {**record, "status": "done"}}
    return update, _said(request["action"], reference, result)


def _reference(request: dict[str, Any], button: dict[str, str], inspection_id: str | None) -> str:
    if request["action"] == "create_work_order":
        return work_order_id(inspection_id, button["subject"], request["element_id"])
    return f"{request['action']}:{inspection_id or 'unknown'}:{button['subject'] or request['element_id']}"


def _said(action: str, reference: str, result: dict[str, Any]) -> str:
    if action != "create_work_order":
        return f"Done: {action.replace('_', ' ')} ({reference})."
    return f"Work order {reference} created." if result.get("created") else f"Work order {reference} already exists."
