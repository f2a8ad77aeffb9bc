"""`read_local_draft`: the inspector's draft, read from a key-value store on the device."""

from __future__ import annotations

import json
from typing import Optional, Protocol

from pydantic import ValidationError

from ..contracts.envelope import ErrorCode
from ..contracts.tools import ReadLocalDraftArgs, ReadLocalDraftResult
from .registry import ToolFailed


class KeyValueStore(Protocol):
    def get(self, key: str) -> Optional[str]: ...


def draft_key(inspection_id: str) -> str:
    return f"sitewalk:draft:{inspection_id}"


def read_local_draft(store: KeyValueStore):
    """Build the implementation bound to a store (localStorage in the browser, a dict in tests)."""

    async def implementation(args: ReadLocalDraftArgs) -> ReadLocalDraftResult:
        key = draft_key(args.inspection_id)
        text = store.get(key)
        if text is None:
            raise ToolFailed(ErrorCode.not_found, f"no draft for {args.inspection_id} on this device", key=key)
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ToolFailed(ErrorCode.corrupt_data, f"the stored draft is not valid JSON: {exc}", key=key) from None
        if isinstance(data, dict):
            data.setdefault("inspection_id", args.inspection_id)
            if data["inspection_id"] != args.inspection_id:
                raise ToolFailed(ErrorCode.corrupt_data, "the stored draft belongs to another inspection", key=key)
        try:
            return ReadLocalDraftResult.model_validate(data)
        except ValidationError as exc:
            raise ToolFailed(ErrorCode.corrupt_data, "the stored draft does not match the draft model", key=key,
                             errors=exc.error_count()) from None

    return implementation
