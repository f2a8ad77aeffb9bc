"""The one canonical JSON form and the one sha256 over it, for every hash both sides compare.

Canonical JSON is `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
encoded as UTF-8: any JSON library can rebuild it. Two cases are decided here once:

- `None` is JSON `null` (arguments of `None` hash as `null`, not as `{}`);
- NaN and the infinities are not JSON: they are refused with a `ValueError` naming the problem,
  never hashed as some other text.

The review card, the audit record, idempotency keys and contract digests all hash through
`sha256_of`, so the same value gives the same hash wherever it is taken.
"""

from __future__ import annotations

import hashlib
import json

__all__ = ["args_hash", "canonical_json", "sha256_of"]


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, non-ASCII kept; ValueError for NaN or an infinity."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as error:
        raise ValueError(f"not canonical JSON: NaN and infinities have no JSON form ({error})") from error


def sha256_of(value: object) -> str:
    """The sha256 (lowercase hex) of `value`'s canonical JSON, UTF-8 encoded."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def args_hash(args: object) -> str:
    """The hash of a tool call's arguments that a review card and an audit record both name."""
    return sha256_of(args)
