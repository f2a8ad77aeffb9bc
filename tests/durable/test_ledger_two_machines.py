"""Two durable servers as two machines: each runs from a folder of its own (its own copy of langgraph.json,
its own working folder, logs and SQLite path), and they share nothing but the Postgres URL. Replays and
forks on both race the same business key at once: the ticket system holds one order, and every caller got
the original back. The ledger is chosen by the servers' own DATABASE_URL (SITEWALK_LEDGER_URL unset)."""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from durable_helpers import start_test_postgres
from langgraph_sdk import get_client
from langgraph_sdk.schema import Checkpoint

from sitewalk_agent.demo.scripted_model import REVIEW_SUBJECTS
from sitewalk_agent.field_actions import work_order_key
from sitewalk_agent.workorders.postgres import TABLE
from sitewalk_build.durable import AegraSettings, Layout, aegra_part, aegra_url, ensure_installed, start_aegra
from sitewalk_build.durable_process import Part
from sitewalk_build.paths import ROOT

pytestmark = [pytest.mark.durable, pytest.mark.xdist_group("ledger-two-machines")]
ASSISTANT = "inspection"
BOLT = REVIEW_SUBJECTS[0]
THREADS_PER_MACHINE = 2
# A slow ticket system (the request in flight before it files): the racing calls overlap at the claim.
LATENCY_MS = "300"


@dataclass
class Machine:
    folder: Path
    server: Part

    @property
    def url(self) -> str:
        return aegra_url(self.server)


def _config_copy(folder: Path) -> Path:
    """This machine's langgraph.json: the project's, with the graph files and the package named absolutely."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["graphs"] = {name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()}
    config["dependencies"] = [str(ROOT)]
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config, indent=2))
    return path


def _machine(name: str, home: Path, database_url: str) -> Machine:
    folder = home / name
    folder.mkdir(parents=True)
    env = {"SITEWALK_LEDGER_URL": "", "SITEWALK_WORKORDERS_DB": str(folder / "workorders.sqlite3"),
           "SITEWALK_WORKORDERS_LATENCY_MS": LATENCY_MS}
    part = aegra_part(Layout(folder), f"aegra-{name}", AegraSettings(database_url, None, _config_copy(folder), env))
    part.cwd = folder
    return Machine(folder, part)


@pytest.fixture(scope="module")
def machines() -> Iterator[tuple[str, list[Machine]]]:
    ensure_installed()
    database, url, layout = start_test_postgres("ledger-two-machines")
    started: list[Machine] = []
    try:
        for name in ("machine-a", "machine-b"):
            machine = _machine(name, layout.home, url)
            started.append(machine)
            start_aegra(machine.server)  # one after the other: the first runs Aegra's migrations
        yield url, started
    finally:
        for machine in reversed(started):
            machine.server.stop()
        database.stop()
        shutil.rmtree(layout.home, ignore_errors=True)


class Inspector:
    """One thread of the inspection on one machine, driven with the official SDK."""

    def __init__(self, url: str, inspection: str) -> None:
        self.client = get_client(url=url)
        self.inspection = inspection
        self.thread = ""

    async def start(self) -> None:
        self.thread = (await self.client.threads.create(metadata={"test": "ledger-two-machines"}))["thread_id"]
        opening: dict[str, Any] = {"messages": [{"role": "user",
                                                 "content": f"Start inspection {self.inspection} script: review"}]}
        await self.client.runs.wait(self.thread, ASSISTANT, input=opening)

    async def approve_bolt(self, thread: str | None = None) -> dict[str, Any]:
        """Approve the pending bolt order of `thread` (this one by default); the tool's answer (envelope)."""
        thread = thread or self.thread
        state = await self.client.threads.get_state(thread)
        [bolt] = [i for i in state["interrupts"] if (i.get("value") or {}).get("type") == "tool_approval"
                  and i["value"]["args"].get("subject") == BOLT]
        decision = {"type": "approve", "args_revision": bolt["value"]["args_revision"],
                    "args_hash": bolt["value"]["args_hash"]}
        await self.client.runs.wait(thread, ASSISTANT, command={"resume": {bolt["id"]: decision}})
        values: dict[str, Any] = dict((await self.client.threads.get_state(thread))["values"])  # type: ignore[arg-type]
        [answer] = [m for m in values["messages"]
                    if m.get("type") == "tool" and m["tool_call_id"] == bolt["value"]["tool_call_id"]]
        return dict(json.loads(answer["content"]))

    async def review_checkpoint(self, thread: str) -> Checkpoint:
        """The checkpoint where `thread` first waited for the reviews."""
        history = await self.client.threads.get_history(thread, limit=100)
        waiting = [s for s in history if any((i.get("value") or {}).get("type") == "tool_approval"
                                             for i in s["interrupts"])]
        return waiting[-1]["checkpoint"]

    async def replay_and_fork(self, thread: str) -> list[dict[str, Any]]:
        """On `thread` (another machine's): replay from its review, approve; fork from it, approve."""
        checkpoint = await self.review_checkpoint(thread)
        await self.client.runs.wait(thread, ASSISTANT, input=None, checkpoint=checkpoint)
        replayed = await self.approve_bolt(thread)
        fork = await self.client.threads.update_state(thread, {"inspection_id": self.inspection}, as_node="model",
                                                      checkpoint=checkpoint)
        await self.client.runs.wait(thread, ASSISTANT, input=None, checkpoint=fork["checkpoint"])
        return [replayed, await self.approve_bolt(thread)]


async def _race(urls: list[str], inspection: str) -> list[dict[str, Any]]:
    placed = [(n, Inspector(url, inspection)) for n, url in enumerate(urls) for _ in range(THREADS_PER_MACHINE)]
    inspectors = [inspector for _, inspector in placed]
    await asyncio.gather(*(i.start() for i in inspectors))
    answers = list(await asyncio.gather(*(i.approve_bolt() for i in inspectors)))  # every thread files at once
    # then every thread is replayed and forked from the OTHER machine, all at once
    others = [Inspector(urls[(n + 1) % len(urls)], inspection) for n, _ in placed]
    again = await asyncio.gather(*(o.replay_and_fork(i.thread) for o, i in zip(others, inspectors, strict=True)))
    for client in [*inspectors, *others]:
        await client.client.aclose()
    return answers + [a for pair in again for a in pair]


def test_replays_and_forks_on_two_machines_file_one_order(machines: tuple[str, list[Machine]]) -> None:
    database_url, two = machines
    inspection = f"inspection-72-{uuid.uuid4().hex[:8]}"  # the scripted model wants a digit in the id
    answers = asyncio.run(_race([m.url for m in two], inspection))

    assert len(answers) == 3 * THREADS_PER_MACHINE * len(two)
    assert all(a.get("ok") for a in answers), [a for a in answers if not a.get("ok")]  # none refused
    results = [a["result"] for a in answers]
    key = work_order_key(inspection, BOLT)
    assert {r["key"] for r in results} == {key}
    assert sum(r["created"] for r in results) == 1  # one caller filed it ...
    assert len({r["work_order"] for r in results}) == 1  # ... and every caller got that order back
    with psycopg.connect(database_url, autocommit=True) as connection:
        rows = connection.execute(f"SELECT id, subject FROM {TABLE} WHERE key = %s", (key,)).fetchall()
    assert rows == [(results[0]["work_order"], BOLT)]
    assert not any((m.folder / "workorders.sqlite3").exists() for m in two)  # no machine kept a ledger of its own
