"""A JSON container whose text is skimmed, not parsed, until its closing bracket arrives.

The incremental parser hands deep containers (ones nobody needs events inside) to this class:
it collects their text and finds the matching closing bracket with compiled regular
expressions that jump over whole runs of string content and other characters, so Python code
runs only at brackets and at string boundaries cut by a fragment. It does not check the
grammar; the parser decodes the collected text once when it closes (and a bad one then).

A short fragment without a closing bracket cannot close the container, so the parser only
stores it (`parts.append`); the skim runs over the stored text when a fragment brings `}` or
`]`, or a long one (a frame's text) comes. Each character is skimmed once.
"""

from __future__ import annotations

import re
from typing import Generic, TypeVar

__all__ = ["DeferredContainer", "JsonContainer", "Path"]

Path = tuple[str | int, ...]  # where a value sits in the partial value: keys and indexes, outermost first
JsonContainer = dict[str, object] | list[object]  # an object or an array, filled in as the stream arrives
Sub = TypeVar("Sub")  # the parser that fills in the partial value (partial_json's, which imports this module)

# Everything up to the next bracket or an unterminated string, skipping complete strings.
_SKIP = re.compile(r'[^"{}\[\]]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"{}\[\]]*)*', re.S)
# The rest of an open string up to its closing quote; stops before a lone trailing backslash.
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)


class DeferredContainer(Generic[Sub]):
    """The text of one open container and where it sits in the partial value."""

    __slots__ = ("path", "owner", "slot", "start", "parts", "scanned", "depth", "in_string", "escape",
                 "sub", "fed")

    def __init__(self, opener: str, path: Path, owner: JsonContainer | None, slot: str | int | None,
                 start: int) -> None:
        self.path = path
        self.owner = owner  # the parent container (None for the top-level value) and the key or index
        self.slot = slot
        self.start = start  # stream offset of the opening bracket
        self.parts = [opener]
        self.scanned = 1  # parts[:scanned] have been skimmed
        self.depth = 1
        self.in_string = False
        self.escape = False  # the skimmed text ends with a backslash inside a string
        self.sub: Sub | None = None  # a parser filling in the partial value, made when someone reads it
        self.fed = 0  # parts[:fed] were fed to sub

    def add(self, text: str) -> tuple[int | None, int]:
        """Skim stored and new text; (index just past the closing bracket in text or None, chars skimmed).

        Stored parts hold no closing bracket (the parser only stores such fragments), so the
        closing bracket, if any, is in text.
        """
        pending = self.parts[self.scanned:]
        chunk = "".join(pending) + text if pending else text
        cut = self._skim(chunk)
        self.parts.append(text if cut < 0 else text[:cut - (len(chunk) - len(text))])
        self.scanned = len(self.parts)
        if cut < 0:
            return None, len(chunk)
        return cut - (len(chunk) - len(text)), cut

    def text(self) -> str:
        return "".join(self.parts)

    def place(self, value: object) -> None:
        owner, slot = self.owner, self.slot  # an object's key, or an array's index
        if isinstance(owner, dict) and isinstance(slot, str):
            owner[slot] = value
        elif isinstance(owner, list) and isinstance(slot, int):
            owner[slot] = value

    def _skim(self, chunk: str) -> int:
        """Advance the bracket depth over chunk; the index past the closing bracket, or -1."""
        if not self.escape and _plain(chunk):
            # no bracket and no backslash: only the string state changes, once per quote (a list of
            # short strings, such as an element's children, costs the regex an iteration a string)
            self.in_string ^= chunk.count('"') % 2 == 1
            return -1
        pos, end = 0, len(chunk)
        if self.escape and end:
            self.escape, pos = False, 1  # the escaped character
        while pos < end:
            if self.in_string:
                rest = _STRING_REST.match(chunk, pos)
                assert rest is not None  # the pattern matches the empty string: it always matches
                pos = rest.end()
                if pos == end:
                    return -1
                if chunk[pos] == "\\":  # a lone backslash ends the chunk
                    self.escape = True
                    return -1
                self.in_string = False
                pos += 1
                continue
            skip = _SKIP.match(chunk, pos)
            assert skip is not None  # likewise
            pos = skip.end()
            if pos == end:
                return -1
            char = chunk[pos]
            pos += 1
            if char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth == 0:
                    return pos
        return -1


def _plain(chunk: str) -> bool:
    """No bracket and no backslash in chunk (five scans in C)."""
    return "]" not in chunk and "}" not in chunk and "[" not in chunk and "{" not in chunk and "\\" not in chunk
