"""The soak's tally (tests/durable/soak.py) counts what the server answered, not what was tried.

No server here: `AgentServerClient` is swapped for a stand-in whose resume answers as told (a 409, a
500, an error event, a stream, or no connection at all), so each count is pinned to its cause. The
soak itself (tests/durable/test_soak_small.py) then asserts these counts on two real Aegra servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
import soak as soak_module
from soak import ACCEPTED, Soak, Stuck, delivery_failure

from sitewalk.agentserver import ServerUnreachable, StreamError, error_for_status

PENDING = {"id": "interrupt-1", "value": {"tool_call": {"id": "call-1"}}}


class Resume:
    """A client whose resume answers with `answer`: an exception to raise, or events to stream."""

    def __init__(self, answer: BaseException | list[Any]) -> None:
        self.answer = answer
        self.resumes = 0

    def __call__(self, url: str) -> Resume:
        return self

    async def __aenter__(self) -> Resume:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def resume(self, thread_id: str, assistant: str, answer: Any, **options: Any) -> AsyncIterator[Any]:
        self.resumes += 1

        async def parts() -> AsyncIterator[Any]:
            if isinstance(self.answer, BaseException):
                raise self.answer
            for part in self.answer:
                yield part

        return parts()


def soak_with(monkeypatch: pytest.MonkeyPatch, answer: BaseException | list[Any]) -> tuple[Soak, Resume]:
    client = Resume(answer)
    monkeypatch.setattr(soak_module, "AgentServerClient", client)
    return Soak(SimpleNamespace(urls=["http://127.0.0.1:1"]), seed=0), client


@pytest.mark.parametrize(("error", "count"), [
    (error_for_status(409, {"detail": "thread busy"}), "refused_deliveries"),
    (error_for_status(400, {"detail": "not interrupted"}), "refused_deliveries"),
    (error_for_status(422, None), "refused_deliveries"),
    (error_for_status(500, {"detail": "boom"}), "server_errors"),
    (error_for_status(503, None), "server_errors"),
    (StreamError({"error": "ValueError", "message": "bad answer"}), "stream_errors"),
])
def test_a_failed_delivery_is_counted_by_what_the_server_answered(error, count):
    assert delivery_failure(error) == count


def test_a_refused_duplicate_is_one_duplicate_and_one_refusal(monkeypatch):
    soak, client = soak_with(monkeypatch, error_for_status(409, {"detail": "already answered"}))
    asyncio.run(soak.resend("thread-1", PENDING))
    assert client.resumes == 1
    counts = {k: v for k, v in soak.tally.items() if k != "clients"}
    assert counts == {"duplicate_deliveries": 1, "refused_duplicates": 1, "refused_deliveries": 1}


def test_a_server_error_is_no_refusal(monkeypatch):
    soak, _ = soak_with(monkeypatch, error_for_status(500, {"detail": "boom"}))
    asyncio.run(soak.resend("thread-1", PENDING))
    counts = {k: v for k, v in soak.tally.items() if k != "clients"}
    assert counts == {"duplicate_deliveries": 1, "server_errors": 1}


def test_a_duplicate_the_server_took_is_counted_but_not_refused(monkeypatch):
    soak, _ = soak_with(monkeypatch, [{"event": "values"}])
    assert asyncio.run(soak.deliver("thread-1", PENDING)) == ACCEPTED
    asyncio.run(soak.resend("thread-1", PENDING))
    counts = {k: v for k, v in soak.tally.items() if k != "clients"}
    assert counts == {"duplicate_deliveries": 1}


def test_a_resend_that_never_reached_a_server_is_no_duplicate_delivery(monkeypatch):
    """It used to be counted before it was sent: a resend lost to dead servers still counted as delivered."""
    monkeypatch.setattr(soak_module, "STEP_TIMEOUT_S", 0.0)
    soak, client = soak_with(monkeypatch, ServerUnreachable("http://127.0.0.1:1", "refused"))
    with pytest.raises(Stuck):
        asyncio.run(soak.resend("thread-1", PENDING))
    assert client.resumes >= 1 and soak.tally["unreachable"] >= 1
    assert soak.tally["duplicate_deliveries"] == 0 and soak.tally["refused_deliveries"] == 0
