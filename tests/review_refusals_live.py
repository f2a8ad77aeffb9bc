"""Refused review decisions against a live agent server, driven by the official Python SDK (`langgraph_sdk`).

Shared by tests/unit/test_review_refusals_live.py (the session's server: `langgraph dev`, or Aegra with
SITEWALK_SERVER=aegra) and tests/durable/test_review_refusals.py (Aegra on Postgres, as CI runs it).
Each scenario starts `script: review` under an inspection id of its own, so the work orders it may file
(keyed by inspection and subject, mirrored into the store) are its own, and checks, after the refused
decision: the run did not fail, the thread still waits, the call has no tool result and no work order,
and a correct decision afterwards runs. The refusals are on the thread's audit trail, once each (keyed
by the interrupt answered and the code), and `python -m sitewalk_agent.audit verify` says the trail is whole.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
from langgraph_sdk import get_client

from sitewalk_agent.audit.cli import main as audit_main
from sitewalk_agent.audit.cli import read_trail
from sitewalk_agent.audit.trail import audit_namespace
from sitewalk_agent.field_actions import work_order_key
from sitewalk_shared.contracts.audit import HEAD_KEY
from sitewalk_shared.contracts.workorders import work_orders_namespace

ASSISTANT = "inspection"

__all__ = ["contract_breaking_edit", "repeated_decision", "stale_decision"]


class Review:
    """One `script: review` thread on the server, with the helpers the scenarios share."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = get_client(url=url)
        self.inspection = f"inspection-rf{uuid.uuid4().hex[:10]}"
        self.thread = ""

    async def start(self) -> list[dict[str, Any]]:
        self.thread = (await self.client.threads.create(metadata={"test": "review-refusals"}))["thread_id"]
        opening: dict[str, Any] = {"messages": [{"role": "user",
                                                 "content": f"Start inspection {self.inspection} script: review"}]}
        await self.client.runs.wait(self.thread, ASSISTANT, input=opening)
        return await self.pending()

    async def pending(self) -> list[dict[str, Any]]:
        state = await self.client.threads.get_state(self.thread)
        found: list[dict[str, Any]] = [dict(i) for i in state["interrupts"]]
        return [i for i in found if (i.get("value") or {}).get("type") == "tool_approval"]

    async def resume(self, decisions: dict[str, Any]) -> dict[str, Any]:
        """One resume; returns the run as the server ended it (its status)."""
        run = await self.client.runs.create(self.thread, ASSISTANT, command={"resume": decisions})
        await self.client.runs.join(self.thread, run["run_id"])
        return dict(await self.client.runs.get(self.thread, run["run_id"]))

    async def tool_results(self) -> dict[str, dict[str, Any]]:
        state = await self.client.threads.get_state(self.thread)
        values: dict[str, Any] = dict(state["values"])  # type: ignore[arg-type]
        return {m["tool_call_id"]: m for m in values["messages"] if m.get("type") == "tool"}

    async def order(self, subject: str) -> dict[str, Any] | None:
        """The work order filed for this subject, as the agent mirrors it into the store (None: none filed)."""
        try:
            item = await self.client.store.get_item(list(work_orders_namespace()),
                                                    work_order_key(self.inspection, subject))
        except httpx.HTTPStatusError as error:  # 404: none filed
            if error.response.status_code != 404:
                raise
            return None
        return dict(item["value"]) if item else None

    async def waits_on(self, call: dict[str, Any]) -> dict[str, Any]:
        """The thread still waits (status interrupted) on this call's review; that review."""
        thread = await self.client.threads.get(self.thread)
        assert thread["status"] == "interrupted", thread["status"]
        [again] = [i for i in await self.pending() if i["value"]["tool_call_id"] == call["value"]["tool_call_id"]]
        assert again["value"]["args_hash"] == call["value"]["args_hash"]
        return again

    async def refusals(self, call: dict[str, Any]) -> list[tuple[object, object, object]]:
        """(interrupt id, code, field) of each refusal of this call on the audit trail, after `verify` says
        the trail is whole (exit 0), in chain order."""
        assert await asyncio.to_thread(audit_main, ["verify", self.thread, "--server", self.url]) == 0
        records = [v for k, v in sorted(await read_trail(self.url, audit_namespace(self.thread))) if k != HEAD_KEY]
        return [(r["interrupt_id"], r["outcome"], r["field"]) for r in records if r["review_status"] == "refused"
                and r["tool_call_id"] == call["value"]["tool_call_id"]]

    async def close(self) -> None:
        await self.client.aclose()


RAN = ("success", "interrupted")  # a run that paused on an interrupt: langgraph dev says success, Aegra interrupted


def approve(review: dict[str, Any], **override: Any) -> dict[str, Any]:
    return {"type": "approve", "args_revision": review["value"]["args_revision"],
            "args_hash": review["value"]["args_hash"], **override}


def edit(review: dict[str, Any], **changes: Any) -> dict[str, Any]:
    value = review["value"]
    return {"type": "edit", "args_revision": value["args_revision"], "args_hash": value["args_hash"],
            "edited_action": {"name": value["name"], "args": {**value["args"], **changes}}}


def _by_name(pending: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    first, second = (i for i in pending if i["value"]["name"] == "create_work_order")
    [notice] = [i for i in pending if i["value"]["name"] == "notify_site_manager"]
    return first, second, notice


async def contract_breaking_edit(url: str) -> None:
    """The issue's steps: approve the first order, edit the second's priority to `medium`, reject the notice."""
    review = Review(url)
    try:
        first, second, notice = _by_name(await review.start())
        reject = {"type": "reject", "args_revision": 1, "args_hash": notice["value"]["args_hash"], "message": "no"}
        run = await review.resume({first["id"]: approve(first), second["id"]: edit(second, priority="medium"),
                                   notice["id"]: reject})
        assert run["status"] in RAN, run  # the run did not fail
        again = await review.waits_on(second)
        refusal = again["value"]["refusal"]
        assert (refusal["code"], refusal["field"], refusal["decision"]) == ("invalid_edit", "priority", "edit")
        assert "one of low, normal, high, urgent" in refusal["message"]
        results = await review.tool_results()
        assert second["value"]["tool_call_id"] not in results and await review.order(
            second["value"]["args"]["subject"]) is None  # nothing ran for the refused call
        assert first["value"]["tool_call_id"] in results and notice["value"]["tool_call_id"] in results  # the others
        assert await review.order(first["value"]["args"]["subject"]) is not None
        # the same call, decided right this time, runs
        assert (await review.resume({again["id"]: edit(again, priority="urgent")}))["status"] in RAN
        filed = await review.order(second["value"]["args"]["subject"])
        assert filed is not None and filed["id"].startswith("WO-") and not await review.pending()
        # the refusal is on the trail once, though the call's task ran again to file the order
        assert await review.refusals(second) == [(second["id"], "invalid_edit", "priority")]
    finally:
        await review.close()


async def stale_decision(url: str) -> None:
    """A decision naming args the server does not have pending (an old client, a forged request)."""
    review = Review(url)
    try:
        first, _, _ = _by_name(await review.start())
        run = await review.resume({first["id"]: approve(first, args_hash="0" * 64)})
        assert run["status"] in RAN, run
        again = await review.waits_on(first)
        assert again["value"]["refusal"]["code"] == "stale_revision" and again["id"] != first["id"]
        assert first["value"]["tool_call_id"] not in await review.tool_results()
        assert await review.order(first["value"]["args"]["subject"]) is None
        assert await review.refusals(first) == [(first["id"], "stale_revision", None)]
        # The same stale submission again, to the first id: LangGraph takes an answer keyed by a task's first
        # interrupt id as the answer to the task's pending one (its compatibility with older ids), so this
        # is a second refused answer, to the re-asked interrupt, and it is recorded under that one.
        assert (await review.resume({first["id"]: approve(first, args_hash="0" * 64)}))["status"] in RAN
        third = await review.waits_on(first)
        assert third["id"] not in (first["id"], again["id"])
        twice = [(first["id"], "stale_revision", None), (again["id"], "stale_revision", None)]
        assert await review.refusals(first) == twice
        assert (await review.resume({third["id"]: approve(third)}))["status"] in RAN
        assert await review.order(first["value"]["args"]["subject"]) is not None
        assert first["value"]["tool_call_id"] in await review.tool_results()
        assert await review.refusals(first) == twice  # the task ran again, replaying both: still one record each
    finally:
        await review.close()


async def repeated_decision(url: str) -> None:
    """A decision sent again for a call already decided (a retry, another tab): nothing runs twice."""
    review = Review(url)
    try:
        first, second, _ = _by_name(await review.start())
        await review.resume({first["id"]: approve(first)})
        filed = await review.order(first["value"]["args"]["subject"])
        assert filed is not None
        before = await review.tool_results()
        again = await _resume_refused_or_ignored(review, {first["id"]: approve(first)})
        assert again in ("refused", "ignored")
        assert await review.tool_results() == before  # nothing ran again
        assert await review.order(first["value"]["args"]["subject"]) == filed  # the one order, unchanged
        assert [i["id"] for i in await review.pending() if i["id"] == first["id"]] == []
        await review.waits_on(second)  # the thread still waits on the others
        assert (await review.resume({second["id"]: approve(second)}))["status"] in RAN
        assert await review.order(second["value"]["args"]["subject"]) is not None
    finally:
        await review.close()


async def _resume_refused_or_ignored(review: Review, decisions: dict[str, Any]) -> str:
    """A resume the server may refuse outright (an HTTP error) or run with nothing to resume."""
    try:
        run = await review.resume(decisions)
    except httpx.HTTPStatusError as error:  # a server that refuses the resume itself (4xx) is fine too
        if not 400 <= error.response.status_code < 500:
            raise
        return "refused"
    assert run["status"] in RAN, run
    return "ignored"
