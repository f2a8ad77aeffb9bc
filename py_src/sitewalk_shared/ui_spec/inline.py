"""A screen written inline in the agent's text, as JSON-patch lines (json-render's inline mode).

The model talks first, then writes one RFC 6902 op a line:

    The corrosion is worse than the draft says; raising the risk.
    {"op":"replace","path":"/elements/risk/props/level","value":"high"}

A line whose first non-blank character is `{` is a patch line; every other line is prose. As in
json-render, patch lines may also sit in a ```spec fence: the fence lines, and any other line
inside the fence, are neither prose nor patch. `InlineSplitter` tells lines apart fragment by
fragment, so prose reaches the transcript at once (a line starting with a backtick waits for its
end, in case it is a fence) and patch lines reach the patch stream as they arrive; it looks at each
character a bounded number of times. The patches apply to the screen on record (an empty spec
when there is none), on the server and in the browser alike; a message with no patch line leaves
the screen alone.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from .patch_stream import PatchStream, empty_spec
from .validate import Issue, validate_spec

__all__ = ["InlineSplitter", "apply_inline_spec", "split_inline"]

_BLANK = " \t\r"


class InlineSplitter:
    """Feed message text; get back (prose, patch text) for that piece."""

    _OPEN_FENCE = "```spec"

    def __init__(self) -> None:
        # The line being read: None (kind not decided yet), "prose", "patch", "fence?" (starts
        # with a backtick: held whole until its end) or "dropped" (a non-patch line in a fence).
        self._line_kind: str | None = None
        self._held: list[str] = []  # leading blanks of an undecided line, or a whole "fence?" line
        self._in_fence = False
        self.patch_lines = 0

    def feed(self, text: str) -> tuple[str, str]:
        out: dict[str, list[str]] = {"prose": [], "patch": [], "dropped": []}
        i, n = 0, len(text)
        while i < n:
            if self._line_kind is None:
                j = i
                while j < n and text[j] in _BLANK:
                    j += 1
                if j == n:  # only blanks so far: the line's kind is still open
                    self._held.append(text[i:])
                    break
                if text[j] == "\n":  # a blank line: prose, or nothing inside a fence
                    out["dropped" if self._in_fence else "prose"].append("".join(self._held) + text[i:j + 1])
                    self._held, i = [], j + 1
                    continue
                self._line_kind = self._kind_of(text[j])
                if self._line_kind == "patch":
                    self.patch_lines += 1
                if self._line_kind == "fence?":
                    j = i  # keep the blanks: the line may turn out to be prose
                else:
                    if self._line_kind == "prose":  # a patch line's leading blanks are dropped
                        out["prose"].append("".join(self._held))
                    self._held = []
                i = j
            end = text.find("\n", i)
            stop = n if end < 0 else end + 1
            if self._line_kind == "fence?":
                self._held.append(text[i:stop])
                if end >= 0:
                    self._end_fence_line(out)
            else:
                out[self._line_kind].append(text[i:stop])
                if end >= 0:
                    self._line_kind = None
            i = stop
        return "".join(out["prose"]), "".join(out["patch"])

    def close(self) -> str:
        """End of the message: what is still held is prose (unless it is a fence line)."""
        out: dict[str, list[str]] = {"prose": [], "patch": [], "dropped": []}
        if self._line_kind == "fence?":
            self._end_fence_line(out)
        elif self._line_kind is None and not self._in_fence:
            out["prose"].extend(self._held)
        self._held, self._line_kind = [], None
        return "".join(out["prose"])

    def _kind_of(self, first: str) -> str:
        if first == "{":
            return "patch"
        if first == "`":
            return "fence?"
        return "dropped" if self._in_fence else "prose"

    def _end_fence_line(self, out: dict[str, list[str]]) -> None:
        line = "".join(self._held)
        self._held, self._line_kind = [], None
        marker = line.strip()
        if not self._in_fence and marker == self._OPEN_FENCE:
            self._in_fence = True
        elif self._in_fence and marker.startswith("```"):
            self._in_fence = False
        else:
            out["dropped" if self._in_fence else "prose"].append(line)


def split_inline(text: str) -> tuple[str, str]:
    """A whole message's (prose, patch text)."""
    splitter = InlineSplitter()
    prose, patch = splitter.feed(text)
    return prose + splitter.close(), patch


def apply_inline_spec(text: str, on_record: Mapping[str, object] | None
                      ) -> tuple[dict[str, object], list[Issue]] | None:
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

