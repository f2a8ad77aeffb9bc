"""`python -m sitewalk_agent.audit verify|export THREAD_ID --server URL`: check or print a thread's trail.

It reads the records through the Agent Server's store API (`POST /store/items/search`, via the
official `langgraph_sdk` client), so it checks what the server actually holds.

verify also reads the thread's checkpoint history (`threads.get_history`): the graph commits the
chain's head there at each audited step (`audit_head`), where a client cannot move it back, so a
tail cut off the store together with its head pointer is caught too.

verify exits 0 when the chain is whole; 1 naming the first edited, missing, reordered or forked
record (its key and what is wrong; a thread without any record counts as missing; a record the
checkpoints committed that the store lacks or holds re-sealed); 2 when the trail or the thread's
history cannot be read (server unreachable, auth refused, not a store).
export prints {"namespace", "records": [...], "head"} as JSON (exit 0, or 2 when it cannot read).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from langgraph_sdk import get_client

from sitewalk_agent.audit.trail import audit_namespace
from sitewalk_shared.contracts.audit import (
    HEAD_KEY,
    STATE_HEAD,
    ChainProblem,
    check_committed,
    later_head,
    verify_chain,
)
from sitewalk_shared.errors import SitewalkError

__all__ = ["main", "read_committed_head", "read_trail"]

PAGE = 100


Items = list[tuple[str, Mapping[str, object]]]
"""A trail as the store holds it: (key, value), the records and the head pointer."""


class TrailUnreadable(SitewalkError):
    """The store API did not answer with the trail (unreachable, refused, malformed)."""


async def read_trail(server: str, namespace: tuple[str, ...], token: str | None = None) -> Items:
    """Every (key, value) stored under `namespace`, read page by page through the store API."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    client = get_client(url=server, headers=headers, timeout=15.0)
    items: Items = []
    offset = 0
    try:
        while True:
            page = await client.store.search_items(namespace, limit=PAGE, offset=offset)
            found = page.get("items", [])
            # a prefix search also returns deeper namespaces; the trail is this one only
            items.extend((str(i["key"]), i["value"]) for i in found if tuple(i["namespace"]) == namespace)
            offset += len(found)
            if len(found) < PAGE:
                break
    except READ_FAILURES as exc:
        raise _unreadable(f"{'/'.join(namespace)}", server, exc) from exc
    finally:
        await client.aclose()
    return items


async def read_committed_head(server: str, thread_id: str, token: str | None = None) -> dict[str, object] | None:
    """The latest audit head the thread's checkpoints committed (every branch, page by page), or None."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    client = get_client(url=server, headers=headers, timeout=15.0)
    best: object = None
    # the RunnableConfig form both servers take; the SDK's type names only its Checkpoint form
    before: Any = None
    try:
        while True:
            page = await client.threads.get_history(thread_id, limit=PAGE, before=before)
            for state in page:
                values = state.get("values")
                best = later_head(best, values.get(STATE_HEAD) if isinstance(values, dict) else None)
            if len(page) < PAGE:
                return best if isinstance(best, dict) else None
            before = {"configurable": {"checkpoint_id": page[-1]["checkpoint"]["checkpoint_id"]}}
    except READ_FAILURES as exc:
        raise _unreadable(f"the checkpoints of {thread_id}", server, exc) from exc
    finally:
        await client.aclose()


READ_FAILURES = (httpx.HTTPError, OSError, KeyError, TypeError, ValueError)


def _unreadable(what: str, server: str, exc: Exception) -> TrailUnreadable:
    """A failed read as exit 2's error; a refusal (401/403) or a missing thread names its HTTP status."""
    status = f"HTTP {exc.response.status_code} " if isinstance(exc, httpx.HTTPStatusError) else ""
    return TrailUnreadable(f"cannot read {what} from {server}: {status}{exc}")


def _problem(items: Items, committed: object) -> ChainProblem | None:
    if not items:
        return ChainProblem(HEAD_KEY, "missing: the thread has no audit records")
    return verify_chain(items) or check_committed(items, committed)


async def _run(args: argparse.Namespace) -> int:
    namespace = audit_namespace(args.thread_id, args.owner)
    try:
        items = await read_trail(args.server, namespace, args.token)
    except TrailUnreadable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "export":
        records = [value for key, value in sorted(items) if key != HEAD_KEY]
        head = dict(items).get(HEAD_KEY)
        print(json.dumps({"namespace": list(namespace), "records": records, "head": head}, indent=2,
                         ensure_ascii=False))
        return 0
    committed = None
    if items:
        try:
            committed = await read_committed_head(args.server, args.thread_id, args.token)
        except TrailUnreadable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    problem = _problem(items, committed)
    if problem is not None:
        print(f"BROKEN {problem}", file=sys.stderr)
        return 1
    print(f"OK {len(items) - 1} records, chain whole ({'/'.join(namespace)})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitewalk_agent.audit", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("verify", "export"))
    parser.add_argument("thread_id")
    parser.add_argument("--server", required=True, help="the agent server's base URL")
    parser.add_argument("--token", help="bearer token, when the server has auth (SITEWALK_TOKENS)")
    parser.add_argument("--owner", help="the identity that owns the trail, when the server has auth")
    return asyncio.run(_run(parser.parse_args(argv)))
