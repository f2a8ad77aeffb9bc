"""An incremental JSON parser for streamed tool-call arguments.

Feed it the argument text fragment by fragment; it keeps the partially built value (objects
and arrays are inserted into their parent when they open, scalars when they end) and reports
every value that completed, with its path. It never re-parses the buffer: each character is
scanned once, except the unfinished tail of a number or literal (a few characters) and one
trailing backslash of a string, which are carried to the next fragment. `chars_scanned`
counts that work, so tests can assert it grows linearly with the stream.

    parser = PartialJsonParser()
    for fragment in fragments:
        for path, value in parser.feed(fragment):   # ("elements", "card", "props"), {...}
            ...
    final = parser.close()

Tokens are matched with compiled regular expressions (whole runs of a string at a time), so
the per-character work happens in C.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional, Union

__all__ = ["Path", "PartialJsonError", "PartialJsonParser"]

Path = tuple[Union[str, int], ...]

_WS = re.compile(r"[ \t\r\n]*")
# One complete token after optional whitespace. An atom needs its delimiter in view to be complete.
_TOKEN = re.compile(
    r'[ \t\r\n]*(?:(?P<p>[{}\[\]:,])|"(?P<s>[^"\\]*(?:\\.[^"\\]*)*)"'
    r'|(?P<a>-?[0-9][0-9.eE+-]*|true|false|null)(?=[ \t\r\n,}\]:]))',
    re.S,
)
# The body of a string up to (not including) its closing quote or the end of the buffer;
# stops before a lone trailing backslash, which is carried.
_STR_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_ATOM_PREFIX = re.compile(r"-?[0-9][0-9.eE+-]*|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?|-")
_MAX_ATOM = 64
_LITERALS = {"true": True, "false": False, "null": None}

# Parser states of a frame.
_VALUE, _KEY_OR_END, _KEY, _COLON, _COMMA_OR_END, _VALUE_OR_END = range(6)


class PartialJsonError(ValueError):
    """The stream is not JSON; `position` is the offset in the whole stream."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} at offset {position}")
        self.position = position


class _Frame:
    __slots__ = ("container", "path", "state", "key")

    def __init__(self, container: Any, path: Path, state: int):
        self.container = container
        self.path = path
        self.state = state
        self.key: Optional[str] = None


class PartialJsonParser:
    """Incremental parser of one JSON value (a tool call's arguments)."""

    def __init__(self) -> None:
        self.value: Any = None
        self.started = False  # the top-level value has begun
        self.done = False  # the top-level value is complete
        self.chars_scanned = 0  # work counter: characters the scanner looked at
        self.consumed = 0  # characters of the stream fully consumed
        self._stack: list[_Frame] = []
        self._tail = ""  # unfinished atom or a trailing backslash of a string
        self._in_string = False
        self._string_parts: list[str] = []
        self._error: Optional[PartialJsonError] = None
        self._base = 0

    # -- public --------------------------------------------------------------------------------

    def feed(self, text: str) -> list[tuple[Path, Any]]:
        """Consume one fragment; return the values it completed as (path, value), in order."""
        if self._error:
            raise self._error
        completed: list[tuple[Path, Any]] = []
        buf = self._tail + text if self._tail else text
        base = self.consumed - len(self._tail) if self._tail else self.consumed
        self._tail = ""
        self._base = base
        self.chars_scanned += len(buf)
        pos, end = 0, len(buf)
        try:
            while pos < end:
                if self._in_string:
                    pos = self._scan_string(buf, pos, completed)
                    continue
                m = _TOKEN.match(buf, pos)
                if m is None:
                    pos = self._incomplete(buf, pos, base)
                    continue
                pos = m.end()
                kind = m.lastgroup
                if kind == "p":
                    self._punct(m.group("p"), base + pos - 1, completed)
                elif kind == "s":
                    self._scalar(_decode(m.group("s"), base + pos), base + pos, completed, is_key_ok=True)
                else:
                    self._scalar(_atom(m.group("a"), base + pos), base + pos, completed)
        except PartialJsonError as exc:
            self._error = exc
            raise
        self.consumed = base + end
        return completed

    def close(self) -> Any:
        """End of stream: finish a trailing top-level number and return the complete value."""
        if self._error:
            raise self._error
        if self._tail and not self._in_string and not self._stack and not self.done:
            atom = self._tail.strip()
            self._tail = ""
            self._scalar(_atom(atom, self.consumed), self.consumed, [])
        if not self.done:
            raise PartialJsonError("unexpected end of JSON", self.consumed)
        return self.value

    @property
    def open_paths(self) -> list[Path]:
        """Paths of the containers still open, outermost first."""
        return [frame.path for frame in self._stack]

    # -- scanning ------------------------------------------------------------------------------

    def _incomplete(self, buf: str, pos: int, base: int) -> int:
        """No complete token at pos: start a string, carry an atom prefix, or fail."""
        pos = _WS.match(buf, pos).end()
        if pos >= len(buf):
            return pos
        char = buf[pos]
        if char == '"':
            self._expect_value_or_key(base + pos)
            self._in_string = True
            self._string_parts = []
            return pos + 1
        rest = buf[pos:]
        prefix = _ATOM_PREFIX.match(rest)
        if prefix and prefix.end() == len(rest) and len(rest) <= _MAX_ATOM:
            self._tail = rest  # wait for the delimiter
            return len(buf)
        raise PartialJsonError(f"unexpected {char!r}", base + pos)

    def _scan_string(self, buf: str, pos: int, completed: list) -> int:
        m = _STR_BODY.match(buf, pos)
        stop = m.end()
        self.chars_scanned += stop - pos  # the token regex already looked at these once
        if stop < len(buf) and buf[stop] == '"':
            self._string_parts.append(buf[pos:stop])
            raw = "".join(self._string_parts)
            self._in_string = False
            self._string_parts = []
            where = self._base + stop
            self._scalar(_decode(raw, where), where, completed, is_key_ok=True, checked=True)
            return stop + 1
        self._string_parts.append(buf[pos:stop])
        self._tail = buf[stop:]  # "" or a lone backslash
        return len(buf)

    # -- structure -----------------------------------------------------------------------------

    def _expect_value_or_key(self, where: int) -> None:
        frame = self._stack[-1] if self._stack else None
        if frame is None:
            if self.started:
                raise PartialJsonError("data after the end of the value", where)
            return
        if frame.state not in (_VALUE, _KEY_OR_END, _KEY, _VALUE_OR_END):
            raise PartialJsonError("expected ',' or a closing bracket", where)

    def _punct(self, char: str, where: int, completed: list) -> None:
        frame = self._stack[-1] if self._stack else None
        if char in "{[":
            container: Any = {} if char == "{" else []
            path = self._attach(container, where)
            self._stack.append(_Frame(container, path, _KEY_OR_END if char == "{" else _VALUE_OR_END))
            return
        if frame is None:
            raise PartialJsonError(f"unexpected {char!r}", where)
        if char == ":":
            if frame.state != _COLON:
                raise PartialJsonError("unexpected ':'", where)
            frame.state = _VALUE
        elif char == ",":
            if frame.state != _COMMA_OR_END:
                raise PartialJsonError("unexpected ','", where)
            frame.state = _KEY if isinstance(frame.container, dict) else _VALUE
        else:  # } or ]
            is_object = isinstance(frame.container, dict)
            if (char == "}") != is_object or frame.state not in (_COMMA_OR_END, _KEY_OR_END, _VALUE_OR_END):
                raise PartialJsonError(f"unexpected {char!r}", where)
            self._stack.pop()
            self._completed(frame.path, frame.container, completed)

    def _scalar(self, value: Any, where: int, completed: list, is_key_ok: bool = False,
                checked: bool = False) -> None:
        frame = self._stack[-1] if self._stack else None
        if frame is not None and frame.state in (_KEY_OR_END, _KEY):
            if not (is_key_ok and isinstance(value, str)):
                raise PartialJsonError("expected a string key", where)
            frame.key = value
            frame.state = _COLON
            return
        path = self._attach(value, where)
        self._completed(path, value, completed)

    def _attach(self, value: Any, where: int) -> Path:
        """Insert a value where the current frame expects one; return its path."""
        frame = self._stack[-1] if self._stack else None
        if frame is None:
            if self.started:
                raise PartialJsonError("data after the end of the value", where)
            self.started = True
            self.value = value
            return ()
        if isinstance(frame.container, dict):
            if frame.state != _VALUE:
                raise PartialJsonError("expected ':'" if frame.state == _COLON else "expected a key", where)
            frame.container[frame.key] = value
            path = frame.path + (frame.key,)
        else:
            if frame.state not in (_VALUE, _VALUE_OR_END):
                raise PartialJsonError("expected ','", where)
            path = frame.path + (len(frame.container),)
            frame.container.append(value)
        frame.state = _COMMA_OR_END
        return path

    def _completed(self, path: Path, value: Any, completed: list) -> None:
        completed.append((path, value))
        if not path:
            self.done = True


def _decode(raw: str, where: int) -> str:
    if "\\" not in raw:
        return raw
    try:
        return json.loads(f'"{raw}"')
    except ValueError as exc:
        raise PartialJsonError(f"bad string escape ({exc.args[0]})", where) from None


def _atom(text: str, where: int) -> Any:
    if text in _LITERALS:
        return _LITERALS[text]
    try:
        return json.loads(text)
    except ValueError:
        raise PartialJsonError(f"bad number or literal {text!r}", where) from None
