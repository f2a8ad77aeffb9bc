"""`read_local_draft` / `save_local_draft`: the inspector's draft, kept in an async key-value store.

In the browser the store is IndexedDB (`sitewalk.bridge.storage.IndexedDbStore`); in tests a dict
(`tests/memory_storage.py`). A draft is stored as the JSON text of a `ReadLocalDraftResult`. Drafts
written by older versions of the app into localStorage are moved over once, on first read, as they
are (so a corrupt one still reads as corrupt, naming its key).

Saving is idempotent: each save carries a key, `draft-save:{inspection_id}:{sha256 of the draft}[:12]`
(the draft's fields and notes, canonical JSON), kept with its answer under `save_record_key`. Saving
again the draft the device holds already (a replayed or re-delivered call) writes nothing and answers
the original save (same `updated_at`). A different draft writes, so an inspector who goes back to an
earlier text still can.

`start_blank_draft` is the recovery of a `not_found` read: create-if-absent. It writes a blank draft only
when the device holds none for the inspection, and otherwise answers the draft it holds (`created`
false), so a replayed or forked call never writes a second one nor overwrites what the inspector typed
since. An unreadable stored draft stays a `corrupt_data` failure: it is never replaced silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from pydantic import ValidationError

from sitewalk_shared.contracts.canonical import sha256_of
from sitewalk_shared.contracts.envelope import ErrorCode
from sitewalk_shared.contracts.tools import (
    ReadLocalDraftArgs,
    ReadLocalDraftResult,
    SaveLocalDraftArgs,
    SaveLocalDraftResult,
    StartBlankDraftArgs,
    StartBlankDraftResult,
    on_device,
)

from ..base.device_errors import StorageError
from ..base.device_storage import KeyValueStore
from .registry import ToolFailed

__all__ = ["AsyncKeyValueStore", "KeyValueStore", "draft_key", "read_local_draft",
           "save_key", "save_local_draft", "save_record_key", "start_blank_draft"]


class AsyncKeyValueStore(Protocol):
    async def get(self, key: str) -> str | None: ...
    async def set(self, key: str, value: str) -> None: ...


def draft_key(inspection_id: str) -> str:
    return f"sitewalk:draft:{inspection_id}"


def save_record_key(inspection_id: str) -> str:
    """Where the last save of an inspection's draft is recorded: {"key", "result"}."""
    return f"sitewalk:draft-save:{inspection_id}"


def save_key(args: SaveLocalDraftArgs) -> str:
    """The idempotency key of a save: the inspection and a digest of the whole draft (notes too)."""
    return f"draft-save:{args.inspection_id}:{sha256_of(args.model_dump(mode='json'))[:12]}"


async def _saved_already(store: AsyncKeyValueStore, args: SaveLocalDraftArgs, key: str) -> SaveLocalDraftResult | None:
    """The answer of the save the device holds, when it is this very save (same key)."""
    text = await store.get(save_record_key(args.inspection_id))
    try:
        record = json.loads(text) if text else None
        if isinstance(record, dict) and record.get("key") == key:
            return SaveLocalDraftResult.model_validate(record["result"])
    except (ValueError, KeyError, ValidationError):
        return None  # an unreadable record: save again
    return None


START_BLANK = "start_blank_draft"  # the recovery of a missing draft (named in the not_found error)
SAVE_AGAIN = "save_local_draft"  # the recovery of an unreadable one: the inspector saves a new draft
KEPT = "It is kept as it is: the inspector may save a new draft on this device to replace it."


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def _load(store: AsyncKeyValueStore, key: str, legacy: KeyValueStore | None) -> str | None:
    try:
        text = await store.get(key)
        if text is None and legacy is not None:
            text = legacy.get(key)
            if text is not None:  # one-time migration: copy as is, then forget the old copy
                await store.set(key, text)
                legacy.remove(key)
    except StorageError as exc:
        raise ToolFailed(ErrorCode.unavailable, f"the device store is unavailable: {exc}", key=key) from None
    return text


def read_local_draft(store: AsyncKeyValueStore, legacy: KeyValueStore | None = None):
    """Build the implementation bound to a store (IndexedDB in the browser, a dict in tests)."""

    async def implementation(args: ReadLocalDraftArgs) -> ReadLocalDraftResult:
        key = draft_key(args.inspection_id)
        text = await _load(store, key, legacy)
        if text is None:
            raise ToolFailed(ErrorCode.not_found, f"no draft for {args.inspection_id} on this device: start a "
                             f"blank one with {START_BLANK}", key=key, recovery=START_BLANK)
        try:
            data: object = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ToolFailed(ErrorCode.corrupt_data, f"the stored draft {key} is not valid JSON: {exc}. {KEPT}",
                             key=key, recovery=SAVE_AGAIN) from None
        if isinstance(data, dict):
            data.setdefault("inspection_id", args.inspection_id)
            if data["inspection_id"] != args.inspection_id:
                raise ToolFailed(ErrorCode.corrupt_data, f"the stored draft {key} belongs to another inspection. "
                                 f"{KEPT}", key=key, recovery=SAVE_AGAIN)
        try:
            return ReadLocalDraftResult.model_validate(data)
        except ValidationError as exc:
            raise ToolFailed(ErrorCode.corrupt_data, f"the stored draft {key} does not match the draft model. {KEPT}",
                             key=key, errors=exc.error_count(), recovery=SAVE_AGAIN) from None

    return implementation


def save_local_draft(store: AsyncKeyValueStore, clock: Callable[[], str] = _utc_now):
    """Build the implementation that writes a draft (replacing the inspection's earlier one)."""

    async def implementation(args: SaveLocalDraftArgs) -> SaveLocalDraftResult:
        key = draft_key(args.inspection_id)
        idempotency_key = save_key(args)
        record = ReadLocalDraftResult(**args.model_dump(), updated_at=clock(), has_notes=bool(args.notes))
        try:
            original = await _saved_already(store, args, idempotency_key)
            if original is not None:  # this very draft was saved already: nothing is written twice
                return original
            await store.set(key, json.dumps(on_device(record)))  # the notes too: they stay here
            result = SaveLocalDraftResult(inspection_id=args.inspection_id, updated_at=record.updated_at or "",
                                          findings=len(record.findings))
            await store.set(save_record_key(args.inspection_id),
                            json.dumps({"key": idempotency_key, "result": result.model_dump(mode="json")}))
        except StorageError as exc:
            raise ToolFailed(ErrorCode.unavailable, f"the draft could not be saved: {exc}", key=key) from None
        return result

    return implementation


def start_blank_draft(store: AsyncKeyValueStore, legacy: KeyValueStore | None = None,
                      clock: Callable[[], str] = _utc_now):
    """Build the implementation that starts a blank draft unless the device holds one (create-if-absent)."""
    read = read_local_draft(store, legacy)

    async def implementation(args: StartBlankDraftArgs) -> StartBlankDraftResult:
        try:  # a draft held already (or an old one in localStorage) is the answer; a corrupt one stays a failure
            held = await read(ReadLocalDraftArgs(inspection_id=args.inspection_id))
            return StartBlankDraftResult(**on_device(held), created=False)
        except ToolFailed as exc:
            if exc.code != ErrorCode.not_found:
                raise
        blank = ReadLocalDraftResult(inspection_id=args.inspection_id, site="", updated_at=clock())
        key = draft_key(args.inspection_id)
        try:
            await store.set(key, json.dumps(on_device(blank)))
        except StorageError as exc:
            raise ToolFailed(ErrorCode.unavailable, f"the blank draft could not be stored: {exc}", key=key) from None
        return StartBlankDraftResult(**on_device(blank), created=True)

    return implementation
