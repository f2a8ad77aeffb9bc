"""The sign-in token file (SITEWALK_TOKENS), read at start and again whenever it changes.

    {"<token>": {"identity": "ana", "display_name": "Ana Ortiz"}, ...}

Tokens are kept by their SHA-256, so a lookup's timing says nothing about how close a wrong token
was. A token removed from the file (revoked) is refused from the next check on: the file's stamp
(modification time, size, inode) is looked at at most once every `RECHECK_SECONDS`, off the event loop
(the auth handler must not block it). A changed file that cannot be used (half written, not JSON,
removed) keeps the tokens read before and is logged; at start it stops the server (TokenFileError).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from pathlib import Path

from langgraph_sdk import Auth

from sitewalk_shared.errors import SitewalkError

__all__ = ["RECHECK_SECONDS", "TokenFile", "TokenFileError", "digest", "load_tokens"]

RECHECK_SECONDS = 1.0
MIN_TOKEN_LENGTH = 16
Tokens = dict[str, Auth.types.MinimalUserDict]
Stamp = tuple[int, int, int] | None

log = logging.getLogger(__name__)


class TokenFileError(SitewalkError, ValueError):
    """The token file named by SITEWALK_TOKENS cannot be used (missing, not JSON, bad entries)."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _entry(token: object, who: object, path: Path) -> Auth.types.MinimalUserDict:
    if not isinstance(token, str) or len(token) < MIN_TOKEN_LENGTH:
        raise TokenFileError(f"{path}: every token must be a string of at least {MIN_TOKEN_LENGTH} characters")
    fields = who if isinstance(who, dict) else {}
    identity = fields.get("identity")
    if not isinstance(identity, str) or not identity.strip():
        raise TokenFileError(f"{path}: the entry of a token needs an `identity` (a non-empty string)")
    display = fields.get("display_name", identity)
    if not isinstance(display, str):
        raise TokenFileError(f"{path}: `display_name` of {identity!r} must be a string")
    return {"identity": identity, "display_name": display}


def load_tokens(path: str | Path) -> Tokens:
    """The token file as {sha256(token): {identity, display_name}}; TokenFileError when unusable."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TokenFileError(f"SITEWALK_TOKENS={path}: cannot read it ({exc.strerror})") from exc
    except ValueError as exc:
        raise TokenFileError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, dict) or not data:
        raise TokenFileError(f"{path}: expected an object mapping tokens to {{identity, display_name}}")
    return {digest(token): _entry(token, who, path) for token, who in data.items()}


def _stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


class TokenFile:
    """The tokens of one file, as it is now (give or take `RECHECK_SECONDS`)."""

    def __init__(self, path: str | Path, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self.path = Path(path)
        self.recheck_seconds = recheck_seconds
        self.stamp = _stamp(self.path)
        self.tokens = load_tokens(self.path)  # at start an unusable file stops the server
        self._checked = time.monotonic()

    async def inspector(self, token: str) -> Auth.types.MinimalUserDict | None:
        """Who `token` belongs to in the file as it is now; None when it is not (or no longer) there."""
        if time.monotonic() - self._checked >= self.recheck_seconds:
            self._checked = time.monotonic()
            await asyncio.to_thread(self.reload_if_changed)
        return self.tokens.get(digest(token))

    def reload_if_changed(self) -> bool:
        """Read the file again if its stamp changed; whether the tokens were replaced."""
        stamp = _stamp(self.path)
        if stamp == self.stamp:
            return False
        self.stamp = stamp  # a broken file is logged once, not at every check
        try:
            self.tokens = load_tokens(self.path)
        except TokenFileError as exc:
            log.error("sign-in token file changed but cannot be used; the tokens read before stay: %s", exc)
            return False
        log.info("sign-in token file read again: %d token(s)", len(self.tokens))
        return True
