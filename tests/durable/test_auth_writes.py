"""No write can plant a thread in another inspector's list: every request that carries metadata keeps
the owner the server set (py_src/sitewalk_agent/auth.py), on both servers, through the official
Python SDK (`langgraph_sdk`), the way any client of the Agent Server API would try it.

Ben owns his threads. A write that names another owner (on create, update, a run) is refused (403) and
changes nothing; a copy is his; the thread stays his: Ana's `threads.search()` never lists it and she cannot
read it. What has no owner of its own to keep (assistants, crons) cannot be written at all; the store keeps
ownership in the namespace.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from signin_helpers import ANA, BEN

FORGED = {"owner": "ana", "inspection_id": "inspection-9"}
DENIED = (403, 404, 409)


def as_ana_and_ben(url: str, test: Callable[[LangGraphClient, LangGraphClient], Awaitable[None]]) -> None:
    async def go() -> None:
        ana, ben = get_client(url=url, headers=ANA.headers), get_client(url=url, headers=BEN.headers)
        try:
            await test(ana, ben)
        finally:
            await ana.aclose()
            await ben.aclose()

    asyncio.run(go())


async def listed(client: LangGraphClient) -> set[str]:
    return {t["thread_id"] for t in await client.threads.search(limit=1000)}


def metadata(found: Any) -> dict[str, Any]:
    """A thread's or assistant's metadata (the SDK types it as optional)."""
    return dict(found.get("metadata") or {})


async def assert_still_bens(ana: LangGraphClient, ben: LangGraphClient, thread_id: str) -> None:
    """The thread is Ben's as the server sees it: his owner, in his list, not in Ana's, unreadable by her."""
    assert metadata(await ben.threads.get(thread_id))["owner"] == "ben"
    assert thread_id in await listed(ben)
    assert thread_id not in await listed(ana)
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await ana.threads.get(thread_id)
    assert refused.value.response.status_code in DENIED


async def refused(call: Awaitable[Any]) -> int:
    with pytest.raises(httpx.HTTPStatusError) as error:
        await call
    return error.value.response.status_code


def test_create_keeps_the_creator_as_owner(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        tag = {"inspection_id": f"inspection-{uuid.uuid4().hex[:8]}"}
        assert await refused(ben.threads.create(metadata={**tag, "owner": "ana"})) == 403
        assert await ben.threads.search(metadata=tag) == []  # nothing was created
        thread = await ben.threads.create(metadata={**tag, "owner": "ben"})  # his own name is his
        assert (metadata(thread)["owner"], metadata(thread)["inspection_id"]) == ("ben", tag["inspection_id"])
        await assert_still_bens(ana, ben, thread["thread_id"])

    as_ana_and_ben(signed_in_server, test)


def test_update_cannot_hand_a_thread_to_another_inspector(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        thread_id = (await ben.threads.create(metadata={"inspection_id": "inspection-8"}))["thread_id"]
        assert await refused(ben.threads.update(thread_id, metadata=FORGED)) == 403
        assert metadata(await ben.threads.get(thread_id))["inspection_id"] == "inspection-8"  # nothing merged
        await assert_still_bens(ana, ben, thread_id)

    as_ana_and_ben(signed_in_server, test)


def test_a_run_on_his_thread_cannot_hand_it_over(signed_in_server):
    """runs.create and runs.stream carry metadata too (a run may create its thread); whoami is a one-step graph."""
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        thread_id = (await ben.threads.create())["thread_id"]
        assert await refused(ben.runs.create(thread_id, "whoami", input={}, metadata=FORGED)) == 403

        async def stream() -> None:
            async for _ in ben.runs.stream(thread_id, "whoami", input={}, metadata=FORGED):
                pass

        assert await refused(stream()) == 403
        assert await ben.runs.list(thread_id) == []
        await assert_still_bens(ana, ben, thread_id)

    as_ana_and_ben(signed_in_server, test)


def test_a_run_that_creates_its_thread_stamps_the_runner(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        thread_id = str(uuid.uuid4())
        forged = ben.runs.create(thread_id, "whoami", input={}, metadata=FORGED, if_not_exists="create")
        assert await refused(forged) == 403
        assert await refused(ben.threads.get(thread_id)) == 404  # no thread was made
        run = await ben.runs.create(thread_id, "whoami", input={}, if_not_exists="create")
        await ben.runs.join(thread_id, run["run_id"])
        await assert_still_bens(ana, ben, thread_id)

    as_ana_and_ben(signed_in_server, test)


def test_a_copy_is_the_copiers(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        thread_id = (await ben.threads.create(metadata={"inspection_id": "inspection-9"}))["thread_id"]
        try:
            await ben.threads.copy(thread_id)
        except httpx.HTTPStatusError as error:  # a server without thread copy (Aegra) answers 404/405
            assert error.response.status_code in (404, 405, 501), error.response.text
        for copied in await ben.threads.search(metadata={"inspection_id": "inspection-9"}, limit=1000):
            await assert_still_bens(ana, ben, copied["thread_id"])
        assert thread_id not in await listed(ana)
        assert await refused(ana.threads.copy(thread_id)) in DENIED

    as_ana_and_ben(signed_in_server, test)


def test_creating_over_anothers_thread_neither_reads_nor_takes_it(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        thread_id = (await ana.threads.create(metadata={"inspection_id": "inspection-3"}))["thread_id"]
        for if_exists in ("do_nothing", "raise"):
            assert await refused(ben.threads.create(thread_id=thread_id, metadata=FORGED,
                                                    if_exists=if_exists)) in DENIED
        assert await refused(ben.threads.update(thread_id, metadata={"owner": "ben"})) in DENIED
        assert metadata(await ana.threads.get(thread_id))["owner"] == "ana"
        assert thread_id not in await listed(ben)

    as_ana_and_ben(signed_in_server, test)


def test_assistants_and_crons_cannot_be_written(signed_in_server):
    """No owner to keep: writing them is refused outright."""
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        [assistant] = await ben.assistants.search(graph_id="inspection", limit=1)
        assert await refused(ben.assistants.create("inspection", metadata=FORGED)) in DENIED
        assert await refused(ben.assistants.update(assistant["assistant_id"], metadata=FORGED)) in DENIED
        thread_id = (await ben.threads.create())["thread_id"]
        status = await refused(ben.crons.create_for_thread(thread_id, "whoami", schedule="* * * * *",
                                                           input={"note": "nightly"}, metadata=FORGED))
        assert status in (*DENIED, 405, 501)  # refused, or (Aegra) not served
        assert "owner" not in metadata(await ben.assistants.get(assistant["assistant_id"]))

    as_ana_and_ben(signed_in_server, test)


def test_the_store_keeps_ownership_in_the_namespace(signed_in_server):
    async def test(ana: LangGraphClient, ben: LangGraphClient) -> None:
        assert await refused(ben.store.put_item(("users", "ana", "notes"), "planted", {"owner": "ana"})) in DENIED
        await ben.store.put_item(("users", "ben", "notes"), "mine", {"owner": "ana"})
        assert await refused(ana.store.get_item(("users", "ben", "notes"), "mine")) in DENIED
        found = await ana.store.search_items(("users", "ana"), limit=100)
        assert "planted" not in [item["key"] for item in found["items"]]

    as_ana_and_ben(signed_in_server, test)
