"""Helpers of the durable-server tests: stacks in folders of their own, and an inspection driven to its interrupt.

A stack is started by sitewalk_build.durable, the one way the project starts it; its cluster lives
under `.durable/test-runs/` (not the developer's `.durable/pg`) and is removed afterwards. When the
machine lacks Postgres, Redis (two servers) or a Python >= 3.12 the tests skip and say why, unless
SITEWALK_REQUIRE_DURABLE=1 (CI), when they fail (`./sw serve --durable` installs Postgres and Redis).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import Any

import pytest

from sitewalk.agentserver import AgentServerClient, pending_interrupts
from sitewalk_build.durable import (
    DURABLE,
    DurableError,
    DurableServer,
    Layout,
    find_python,
    pg_bin,
    start_durable,
    start_postgres,
)
from sitewalk_build.durable_process import Part
from sitewalk_shared.contracts.envelope import ok_result

ASSISTANT = "inspection"
DRAFT = {
    "inspection_id": "inspection-42",
    "site": "Pier 7 — north berth",
    "inspector": "Ana Ortiz",
    "findings": ["Hairline crack in the east bollard"],
    "risk": "high",
}


def start_message(note: str = "") -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"Start inspection inspection-42 {note}".strip()}]}


def run(coro):
    return asyncio.run(coro)


async def collect(stream) -> list:
    return [part async for part in stream]


async def start_and_wait(client: AgentServerClient, note: str = "") -> tuple[str, Any, list]:
    """A new thread run until it waits on the headless read_local_draft: (thread id, interrupt, parts)."""
    thread = await client.threads.create(metadata={"test": "durable"})
    parts = await collect(client.runs.stream(thread["thread_id"], ASSISTANT, input=start_message(note)))
    [pending] = pending_interrupts(await client.threads.get_state(thread["thread_id"]))
    return thread["thread_id"], pending, parts


def draft_answer(pending: Any, draft: dict[str, Any] | None = None) -> dict[str, Any]:
    """The official SDK's resume shape: {interrupt_id: {tool_call_id: envelope}}."""
    call_id = pending["value"]["tool_call"]["id"]
    return {pending["id"]: {call_id: ok_result("read_local_draft", call_id, dict(draft or DRAFT))}}


def _require_prerequisites(workers: int) -> None:
    """Skip (and say why) on a machine without them; fail instead when SITEWALK_REQUIRE_DURABLE=1 (CI)."""
    try:
        pg_bin()
        find_python()
        if workers >= 2 and not shutil.which("redis-server"):
            raise DurableError("redis-server is not installed (apt-get install redis-server)")
    except DurableError as exc:
        if os.environ.get("SITEWALK_REQUIRE_DURABLE") == "1":
            raise
        pytest.skip(f"durable server prerequisites missing: {exc}")


def start_test_stack(name: str, workers: int = 1, extra_env: dict[str, str] | None = None,
                     config: str = "langgraph.json") -> DurableServer:
    """A stack with a cluster of its own under .durable/test-runs/<name>-<pid> (removed by stop_test_stack)."""
    _require_prerequisites(workers)
    home = DURABLE / "test-runs" / f"{name}-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    return start_durable(workers, home=home, extra_env=extra_env, config=config)


def stop_test_stack(stack: DurableServer) -> None:
    stack.stop()
    shutil.rmtree(stack.layout.home, ignore_errors=True)


def start_test_postgres(name: str) -> tuple[Part, str, Layout]:
    """A Postgres cluster of its own under .durable/test-runs/<name>-<pid>: (its process, its URL, its layout).
    Stop it with `part.stop()` and remove `layout.home`."""
    _require_prerequisites(1)
    layout = Layout(DURABLE / "test-runs" / f"{name}-{os.getpid()}")
    shutil.rmtree(layout.home, ignore_errors=True)
    part, url = start_postgres(layout)
    return part, url, layout
