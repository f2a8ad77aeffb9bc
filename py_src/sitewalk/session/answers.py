"""Headless answering: what this device sends for the headless tools a thread waits on.

Each call runs at most once. The envelope is kept in the answer book (on the device) before it
is sent, so a call that comes again (the same interrupt twice, or a reload that finds the server
still waiting) gets its recorded envelope, never a second run. A contract that differs from the
agent's is answered `contract_mismatch` without running the tool. Once delivered, each answer is
marked so in the book and written to the egress log (what left the device).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitewalk_shared.contracts.envelope import ErrorCode, error_result
from sitewalk_shared.contracts.headless_wire import Envelope, HeadlessRequest, parse_headless_interrupt

from ..agentserver.client import AgentServerClient, pending_interrupts
from ..agentserver.schema import Interrupt
from ..base import trace_hooks
from ..calls.lifecycle import CallStatus
from ..headless.delivery import AnswerBook, AuditLog, ContractMismatch, client_mismatch, mismatch_of, server_mismatches
from ..headless.registry import HeadlessToolRegistry
from .calls import CallBoard, envelope_detail
from .cancel import Cancellation, Cancelled
from .thread import Thread

__all__ = ["Answers", "HeadlessAnswers"]

Answers = dict[str, dict[str, Any]]
"""The resume of headless interrupts: {interrupt_id: {tool_call_id: envelope}}, as the official SDK sends it."""


class HeadlessAnswers:
    def __init__(self, client: AgentServerClient, thread: Thread, registry: HeadlessToolRegistry, calls: CallBoard,
                 cancellation: Cancellation, *, book: AnswerBook | None = None, audit: AuditLog | None = None,
                 on_mismatch: Callable[[ContractMismatch], None] | None = None) -> None:
        self.client = client
        self.thread = thread
        self.registry = registry
        self.calls = calls
        self.cancellation = cancellation
        self.book = book  # envelopes kept on the device before they are sent
        self.audit = audit  # what left the device, per delivered answer
        self.on_mismatch = on_mismatch
        self.outcomes: dict[str, Envelope] = {}  # tool_call_id -> envelope answered
        self.mismatches: list[ContractMismatch] = []  # both directions, each call once

    async def pending(self, state: dict[str, Any] | None = None) -> Answers:
        """Answers for the headless tools the thread waits on (in `state`, else the server's).

        Empty when there are none, or when the inspector cancelled while a tool ran.
        """
        if state is None:
            state = dict(await self.client.threads.get_state(self.thread.id))
        trace_hooks.thread(self.thread.id, state)
        for found in server_mismatches(state):
            self._mismatch(found)
        answers: Answers = {}
        for interrupt in pending_interrupts(state):
            request = parse_headless_interrupt(interrupt.get("value"))
            if request is None:
                continue  # not a headless tool (e.g. a ConfirmButton's decision): another part answers it
            envelope = await self._envelope(interrupt, request)
            if envelope is None:
                return {}  # cancelled: nothing is sent
            mismatch = mismatch_of(envelope)
            if mismatch is not None:
                self._mismatch(mismatch)
            self.calls.ended(request.tool_call_id, request.name, envelope)
            answers[interrupt["id"]] = {request.tool_call_id: envelope}
        return answers

    async def delivered(self, answers: Answers) -> None:
        """The server took these answers: mark them in the book, log what left the device."""
        for answer in answers.values():
            for call_id, envelope in answer.items():
                if self.book is not None:
                    await self.book.delivered(self.thread.id, call_id)
                if self.audit is not None:
                    await self.audit.sent(self.thread.id, envelope)

    async def _envelope(self, interrupt: Interrupt, request: HeadlessRequest) -> Envelope | None:
        """The recorded envelope, or a new one (kept in the book first); None when cancelled."""
        call_id, name = request.tool_call_id, request.name
        envelope = await self._recorded(call_id)
        if envelope is not None:
            return envelope
        self.calls.show(call_id, name, CallStatus.RUNNING)
        with trace_hooks.span("device.headless_tool", interrupt["value"], tool_call_id=call_id, tool_name=name,
                              interrupt_id=interrupt["id"]) as traced:
            envelope = client_mismatch(interrupt["value"], self.registry.contracts,
                                       implemented=set(self.registry.names))
            if envelope is None:
                envelope = await self._run(request)
            traced.answered(envelope)
        if self.cancellation.cancelled:  # not an answer: the run was cancelled while the tool ran
            self.calls.show(call_id, name, CallStatus.FAILED, envelope_detail(envelope) or "cancelled")
            return None
        self.outcomes[call_id] = envelope
        if self.book is not None:
            await self.book.record(self.thread.id, interrupt["id"], envelope)
        return envelope

    async def _run(self, request: HeadlessRequest) -> Envelope:
        try:
            return await self.cancellation.run(self.registry.run(request.tool_call()))
        except Cancelled:
            return error_result(request.name, request.tool_call_id, ErrorCode.cancelled,
                                "the inspector cancelled the run")

    async def answered(self, call_id: str) -> bool:
        """Whether this device has answered the call (asked again, it gets that answer, not a new run)."""
        return await self._recorded(call_id) is not None

    async def _recorded(self, call_id: str) -> Envelope | None:
        """The envelope already answered for a call, in this page or (with a book) before a reload."""
        if call_id in self.outcomes:
            return self.outcomes[call_id]
        record = await self.book.get(self.thread.id, call_id) if self.book is not None else None
        if record is None:
            return None
        self.outcomes[call_id] = record["envelope"]
        return self.outcomes[call_id]

    def _mismatch(self, mismatch: ContractMismatch) -> None:
        if any(seen.tool_call_id == mismatch.tool_call_id for seen in self.mismatches):
            return
        self.mismatches.append(mismatch)
        if self.on_mismatch is not None:
            self.on_mismatch(mismatch)
