"""A screen written inline in the agent's text, as JSON-patch lines (json-render's inline mode).

The model talks first, then writes one RFC 6902 op a line:

    The corrosion is worse than the draft says; raising the risk.
    {"op":"replace","path":"/elements/risk/props/level","value":"high"}

A line whose first non-blank character is `{` is a patch line; every other line is prose.
`InlineSplitter` tells them apart fragment by fragment, so prose reaches the transcript at once
and patch lines reach the patch stream as they arrive; it looks at each character once. The
patches apply to the screen on record (an empty spec when there is none), on the server and in
the browser alike; a message with no patch line leaves the screen alone.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from ..contracts.spec import inline_spec_call_id
from .patch_stream import PatchStream, empty_spec
from .validate import Issue, validate_spec

__all__ = ["InlineSplitter", "apply_inline_spec", "inline_identity", "split_inline"]

_BLANK = " \t\r"


class InlineSplitter:
    """Feed message text; get back (prose, patch text) for that piece."""

    def __init__(self) -> None:
        self._line_kind: Optional[str] = None  # "prose" | "patch" | None (not decided yet)
        self._held = ""  # leading blanks of a line whose kind is not decided yet
        self.patch_lines = 0

    def feed(self, text: str) -> tuple[str, str]:
        prose: list[str] = []
        patch: list[str] = []
        i, n = 0, len(text)
        while i < n:
            if self._line_kind is None:
                j = i
                while j < n and text[j] in _BLANK:
                    j += 1
                if j == n:  # only blanks so far: the line's kind is still open
                    self._held += text[i:]
                    break
                if text[j] == "\n":  # a blank line is prose
                    prose.append(self._held + text[i:j + 1])
                    self._held, i = "", j + 1
                    continue
                self._line_kind = "patch" if text[j] == "{" else "prose"
                if self._line_kind == "prose":
                    prose.append(self._held)
                else:
                    self.patch_lines += 1
                self._held, i = "", j
            end = text.find("\n", i)
            stop = n if end < 0 else end + 1
            (patch if self._line_kind == "patch" else prose).append(text[i:stop])
            if end >= 0:
                self._line_kind = None
            i = stop
        return "".join(prose), "".join(patch)

    def close(self) -> str:
        """End of the message: blanks still held are prose."""
        held, self._held, self._line_kind = self._held, "", None
        return held


def split_inline(text: str) -> tuple[str, str]:
    """A whole message's (prose, patch text)."""
    splitter = InlineSplitter()
    prose, patch = splitter.feed(text)
    return prose + splitter.close(), patch


def apply_inline_spec(text: str, on_record: Optional[dict[str, Any]]) -> Optional[tuple[dict[str, Any], list[Issue]]]:
    """The screen a message's patch lines make of the screen on record, and its issues.

    None when the message has no patch line. A skipped (bad) patch line is an issue: the spec
    is then not what the agent meant, and the caller keeps the screen on record.
    """
    _, patch = split_inline(text)
    if not patch.strip():
        return None
    base = {k: v for k, v in (on_record or empty_spec()).items() if k != "identity"}
    stream = PatchStream(copy.deepcopy(base))
    stream.feed(patch)
    stream.close()
    issues = list(stream.issues)
    if not issues:
        issues = validate_spec(stream.spec)
    return stream.spec, issues


def inline_identity(message_id: str, revision: int) -> dict[str, Any]:
    return {"message_id": message_id, "tool_call_id": inline_spec_call_id(message_id), "revision": revision}

