"""An incremental JSON parser for streamed tool-call arguments.

Feed it the argument text fragment by fragment; it keeps the partially built value (objects
and arrays are inserted into their parent when they open, scalars when they end) and reports
every value that completed, with its path. It never re-parses the buffer: each character is
scanned once, except a short unfinished tail carried to the next fragment (a number or
literal, an object member `"key": value` cut by the fragment's end, carried once, or one
trailing backslash of a string). `chars_scanned` counts that work, so tests can assert it grows
linearly with the stream.

    parser = PartialJsonParser()
    for fragment in fragments:
        for path, value in parser.feed(fragment):   # ("elements", "card", "props"), {...}
            ...
    final = parser.close()

Tokens are matched with compiled regular expressions (whole runs of a string at a time, a
whole object member where one fits), so the per-character work happens in C.

`PartialJsonParser(defer_depth=n)` trades detail for speed: a container whose path has n or
more keys is not tokenized. Its text is skimmed for the matching bracket (`DeferredContainer`)
and decoded by one `json` call when it closes, so it yields one event, for itself, and none
for the values inside it. `.value` still shows its partial content: reading `.value` fills it
in from the text so far. A syntax error inside such a container is raised (at the same offset,
with the same message) by the feed that closes it, by close(), or by the next feed after
`.value` was read, rather than by the feed that brought it. Text in such a container is looked
at up to three times (a test for a closing bracket, the skim, the decode; a long text, a frame's, is
skimmed as it comes, without the test). A container one key
above that depth (a spec's element) that is whole in a long buffer (a frame's worth of fragments
fed at once) is decoded by one `json` call too, and gives the same events; the tokenizer takes
over when it is not whole yet.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import NoReturn

from sitewalk_shared.errors import SitewalkError

from .deferred_json import DeferredContainer, JsonContainer, Path

__all__ = ["JsonContainer", "Path", "PartialJsonError", "PartialJsonParser"]

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
# A whole object member `"key": value` (a string, a delimited atom, or an opening bracket), so
# the common case costs one match instead of three or four; _NEXT_MEMBER starts with its comma.
_KEY_PART = r'"(?P<k>[^"\\]*(?:\\.[^"\\]*)*)"[ \t\r\n]*:[ \t\r\n]*'
_VALUE_PART = (r'(?:"(?P<s>[^"\\]*(?:\\.[^"\\]*)*)"|(?P<a>-?[0-9][0-9.eE+-]*|true|false|null)(?=[ \t\r\n,}\]:])'
               r'|(?P<o>[{\[]))')
_MEMBER = re.compile(r"[ \t\r\n]*" + _KEY_PART + _VALUE_PART, re.S)
_NEXT_MEMBER = re.compile(r"[ \t\r\n]*,[ \t\r\n]*" + _KEY_PART + _VALUE_PART, re.S)
# The next member when its value is a container (a run of elements): ends before the opening bracket.
_NEXT_CONTAINER_MEMBER = re.compile(r"[ \t\r\n]*,[ \t\r\n]*" + _KEY_PART + r"(?=[{\[])", re.S)
# What a member cut off by the end of the fragment may look like (no escapes: their decoding
# errors must surface when the tokenizer would raise them); carried once, whole, to the next one.
_ATOM_START = r"-?[0-9][0-9.eE+-]*|-|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?"
_MEMBER_CUT = (r'"[^"\\]*(?:"[ \t\r\n]*(?::[ \t\r\n]*(?:"[^"\\]*|' + _ATOM_START + r")?)?)?")
_MEMBER_START = re.compile(r"[ \t\r\n]*(?:" + _MEMBER_CUT + r")?")
_NEXT_MEMBER_START = re.compile(r"[ \t\r\n]*(?:,[ \t\r\n]*(?:" + _MEMBER_CUT + r")?)?")
_ATOM_PREFIX = re.compile(r"-?[0-9][0-9.eE+-]*|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?|-")
_MAX_ATOM = 64
_WHOLE_MIN = 256  # a long buffer (a frame's text, not one fragment): containers are tried whole, skimmed at once
_LITERALS = {"true": True, "false": False, "null": None}


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


# Decodes deferred containers; NaN and Infinity are refused as the tokenizer refuses them.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# Its scanner without raw_decode's wrapper: (value, end) from an index; a ValueError, or StopIteration where a
# value inside is missing (as at the end of the text), when the text there is not a whole value.
_SCAN_VALUE: Callable[[str, int], tuple[object, int]] = _DECODER.scan_once  # type: ignore[attr-defined]  # not in the stub

# Parser states of a frame.
_VALUE, _KEY_OR_END, _KEY, _COLON, _COMMA_OR_END, _VALUE_OR_END = range(6)
_MEMBER_STATES = (_KEY_OR_END, _KEY, _COMMA_OR_END)  # where an object may take a whole member


class PartialJsonError(SitewalkError, ValueError):
    """The stream is not JSON; `position` is the offset in the whole stream."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} at offset {position}")
        self.reason = message
        self.position = position


class _Frame:
    __slots__ = ("container", "path", "state", "key")

    def __init__(self, container: JsonContainer, path: Path, state: int):
        self.container = container
        self.path = path
        self.state = state
        self.key: str | None = None


class PartialJsonParser:
    """Incremental parser of one JSON value (a tool call's arguments)."""

    def __init__(self, defer_depth: int | None = None) -> None:
        self.defer_depth = defer_depth  # containers at this path length or deeper are deferred
        self._value: object = None
        self.started = False  # the top-level value has begun
        self.done = False  # the top-level value is complete
        self.chars_scanned = 0  # work counter: characters the scanners looked at
        self.consumed = 0  # characters of the stream fed so far
        self._stack: list[_Frame] = []
        self._tail = ""  # unfinished atom or a trailing backslash of a string
        self._in_string = False
        self._string_parts: list[str] = []
        self._error: PartialJsonError | None = None
        self._base = 0
        self._deferred: DeferredContainer[PartialJsonParser] | None = None

    # -- public --------------------------------------------------------------------------------

    @property
    def value(self) -> object:
        """The value built so far (containers still open hold what has arrived)."""
        if self._deferred is not None:
            self._fill_deferred(self._deferred)
        return self._value

    def feed(self, text: str) -> list[tuple[Path, object]]:
        """Consume one fragment; return the values it completed as (path, value), in order."""
        if self._error:
            raise self._error
        deferred = self._deferred
        if deferred is not None and len(text) < _WHOLE_MIN and "}" not in text and "]" not in text:
            # the common fragment: inside a deferred container and unable to close it (the two
            # membership tests looked at each character once: that is the work counted). A long text
            # (a frame's) is skimmed at once instead, so that each of its characters is looked at twice
            # (the skim, the decode) wherever the frames cut the container, not three times.
            deferred.parts.append(text)
            self.consumed += len(text)
            self.chars_scanned += len(text)
            return []
        completed: list[tuple[Path, object]] = []
        base = self.consumed
        self.consumed += len(text)
        try:
            while True:
                if self._deferred is not None:
                    cut = self._feed_deferred(self._deferred, text, base, completed)
                    if cut is None:
                        break
                    text, base = text[cut:], base + cut
                if not text:
                    break
                cut = self._scan_tokens(text, base, completed)
                if cut is None:
                    break
                text, base = text[cut:], base + cut  # a deferred container began at cut
        except PartialJsonError as exc:
            self._error = exc
            raise
        return completed

    def close(self) -> object:
        """End of stream: finish a trailing top-level number and return the complete value."""
        if self._error:
            raise self._error
        if self._deferred is not None:
            self._fill_deferred(self._deferred)  # finds a syntax error in the unclosed container, if any
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
        paths = [frame.path for frame in self._stack]
        deferred = self._deferred
        if deferred is not None:
            sub = self._fill_deferred(deferred)
            paths += [deferred.path + path for path in sub.open_paths] or [deferred.path]
        return paths

    # -- scanning ------------------------------------------------------------------------------

    def _scan_tokens(self, text: str, base: int, completed: list) -> int | None:
        """Tokenize text; None once all of it is consumed, or the index after a deferred opener."""
        buf = self._tail + text if self._tail else text
        base -= len(self._tail)
        lead = len(self._tail)
        self._tail = ""
        self._base = base
        self.chars_scanned += len(buf)
        pos, end = 0, len(buf)
        while pos < end:
            if self._in_string:
                pos = self._scan_string(buf, pos, completed)
                continue
            frame = self._stack[-1] if self._stack else None
            if frame is not None and frame.state in _MEMBER_STATES and isinstance(frame.container, dict):
                m = (_NEXT_MEMBER if frame.state == _COMMA_OR_END else _MEMBER).match(buf, pos)
                if m is not None:
                    pos = self._member(frame, m, base, completed)
                    if self._deferred is not None:
                        self.chars_scanned -= end - pos
                        return pos - lead
                    continue
                if pos >= lead and self._carry_member(buf, pos, frame.state):
                    return None
            m = _TOKEN.match(buf, pos)
            if m is None:
                pos = self._incomplete(buf, pos, base)
                continue
            pos = m.end()
            kind = m.lastgroup
            if kind == "p":
                self._punct(m.group("p"), base + pos - 1, completed)
                if self._deferred is not None:
                    self.chars_scanned -= end - pos  # the deferred container skims the rest
                    return pos - lead
            elif kind == "s":
                self._scalar(_decode(m.group("s"), base + pos), base + pos, completed, is_key_ok=True)
            else:
                self._scalar(_atom(m.group("a"), base + pos), base + pos, completed)
        return None

    def _carry_member(self, buf: str, pos: int, state: int) -> bool:
        """Keep a short member cut off by the fragment's end for the next fragment, to match whole."""
        if len(buf) - pos > _MAX_ATOM:
            return False
        rest = buf[pos:]
        if "\\" in rest:
            return False
        start = _NEXT_MEMBER_START if state == _COMMA_OR_END else _MEMBER_START
        if start.fullmatch(rest) is None:
            return False
        self._tail = rest
        return True

    def _member(self, frame: _Frame, m: re.Match, base: int, completed: list) -> int:
        """A whole `"key": value` (after a comma when the frame wanted one); the end of it."""
        key = m.group("k")
        frame.key = key if "\\" not in key else _decode(key, base + m.end("k") + 1)
        frame.state = _VALUE
        kind = m.lastgroup
        if kind == "s":
            where, raw = base + m.end(), m.group("s")
            self._scalar(raw if "\\" not in raw else _decode(raw, where), where, completed)
        elif kind == "a":
            self._scalar(_atom(m.group("a"), base + m.end()), base + m.end(), completed)
        else:
            buf = m.string
            if len(buf) >= _WHOLE_MIN and len(frame.path) + 2 == self.defer_depth:  # a spec's element, in a frame
                end = self._whole_container(frame, buf, m.end() - 1, base, completed)
                if end is not None:
                    return end
            self._punct(m.group("o"), base + m.end() - 1, completed)
        return m.end()

    def _whole_container(self, frame: _Frame, buf: str, start: int, base: int, completed: list) -> int | None:
        """Containers one key above the deferred depth (a spec's elements), from the one opening at start and
        on through the members after it while each is whole in the buffer: each decoded by one `json` call,
        its events given as the tokenizer would give them (each member, then itself). The end of the last
        one decoded; None when the first is not whole yet, or the json module refuses it: the tokenizer
        decides (a later one not whole is opened here, as `_member` would). One loop for the run, so that an
        element costs a regex match and a decode, not a pass through the tokenizer's dispatch. Called (by
        `_member`) only in a long buffer (a frame's text, not one fragment)."""
        container, outer, key = frame.container, frame.path, frame.key
        assert isinstance(container, dict) and key is not None  # an object's member, its key just read
        decode, next_member, append = _SCAN_VALUE, _NEXT_CONTAINER_MEMBER.match, completed.append
        last_bracket = max(buf.rfind("}"), buf.rfind("]"))  # a container opening after it cannot close here
        end = None  # of the last container decoded
        while True:
            value, stop = None, start
            if start < last_bracket:  # else not whole: found without the decode's costly error
                try:
                    value, stop = decode(buf, start)
                except (ValueError, StopIteration):
                    pass
            if value is None:  # not whole, or refused
                if end is None:
                    return None
                frame.key = key
                self._punct(buf[start], base + start, completed)  # as _member does with a member not whole
                return start + 1
            end = stop
            container[key] = value  # as _attach would: the frame expected this value
            path = outer + (key,)
            members: Iterable[tuple[str | int, object]] = (
                value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ())
            for member, item in members:
                append((path + (member,), item))
            append((path, value))
            m = next_member(buf, end)
            if m is None:
                frame.key, frame.state = key, _COMMA_OR_END
                return end  # the tokenizer takes the rest
            key = m.group("k")
            if "\\" in key:
                key = _decode(key, base + m.end("k") + 1)
            start = m.end()

    def _feed_deferred(self, deferred: DeferredContainer[PartialJsonParser], text: str, base: int,
                       completed: list) -> int | None:
        """Give text to the deferred container; the index after its closing bracket, or None."""
        cut, skimmed = deferred.add(text)
        self.chars_scanned += skimmed
        if cut is None:
            return None
        self._deferred = None
        source = deferred.text()
        self.chars_scanned += len(source)
        try:
            value, stop = _SCAN_VALUE(source, 0)
        except (ValueError, StopIteration):
            stop = -1
        if stop != len(source):  # not plain JSON to the json module: the tokenizer decides
            value = self._parse_whole(source, deferred.start)
        deferred.place(value)
        if deferred.owner is None:
            self._value = value
        self._completed(deferred.path, value, completed)
        return cut

    def _parse_whole(self, source: str, start: int) -> object:
        parser = PartialJsonParser()
        try:
            parser.feed(source)
            return parser.close()
        except PartialJsonError as exc:
            raise PartialJsonError(exc.reason, start + exc.position) from None
        finally:
            self.chars_scanned += parser.chars_scanned

    def _fill_deferred(self, deferred: DeferredContainer[PartialJsonParser]) -> PartialJsonParser:
        """Bring the deferred container's partial value up to the text that has arrived; its parser."""
        if deferred.sub is None:
            deferred.sub = PartialJsonParser()
        sub = deferred.sub
        if deferred.fed < len(deferred.parts) and sub._error is None:
            piece = "".join(deferred.parts[deferred.fed:])
            deferred.fed = len(deferred.parts)
            before = sub.chars_scanned
            try:
                sub.feed(piece)
            except PartialJsonError as exc:  # raised by the next feed or close
                self._error = PartialJsonError(exc.reason, deferred.start + exc.position)
            self.chars_scanned += sub.chars_scanned - before
        deferred.place(sub._value)
        if deferred.owner is None:
            self._value = sub._value
        return sub

    def _incomplete(self, buf: str, pos: int, base: int) -> int:
        """No complete token at pos: start a string, carry an atom prefix, or fail."""
        space = _WS.match(buf, pos)
        assert space is not None  # the pattern matches the empty string: it always matches
        pos = space.end()
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
        assert m is not None  # the pattern matches the empty string: it always matches
        stop = m.end()
        self.chars_scanned += stop - pos  # the token regex already looked at these once
        if stop < len(buf) and buf[stop] == '"':
            self._string_parts.append(buf[pos:stop])
            raw = "".join(self._string_parts)
            self._in_string = False
            self._string_parts = []
            where = self._base + stop + 1  # just past the closing quote, as for a whole token
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
            container: JsonContainer = {} if char == "{" else []
            path = self._attach(container, where)
            if self.defer_depth is not None and len(path) >= self.defer_depth:
                owner = frame.container if frame is not None else None
                slot = path[-1] if path else None
                self._deferred = DeferredContainer(char, path, owner, slot, where)
                return
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

    def _scalar(self, value: object, where: int, completed: list, is_key_ok: bool = False,
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

    def _attach(self, value: object, where: int) -> Path:
        """Insert a value where the current frame expects one; return its path."""
        frame = self._stack[-1] if self._stack else None
        if frame is None:
            if self.started:
                raise PartialJsonError("data after the end of the value", where)
            self.started = True
            self._value = value
            return ()
        if isinstance(frame.container, dict):
            if frame.state != _VALUE:
                raise PartialJsonError("expected ':'" if frame.state == _COLON else "expected a key", where)
            key = frame.key
            assert key is not None  # an object frame reaches _VALUE only after reading its key
            frame.container[key] = value
            path = frame.path + (key,)
        else:
            if frame.state not in (_VALUE, _VALUE_OR_END):
                raise PartialJsonError("expected ','", where)
            path = frame.path + (len(frame.container),)
            frame.container.append(value)
        frame.state = _COMMA_OR_END
        return path

    def _completed(self, path: Path, value: object, completed: list) -> None:
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


def _atom(text: str, where: int) -> object:
    if text in _LITERALS:
        return _LITERALS[text]
    try:
        return json.loads(text)
    except ValueError:
        raise PartialJsonError(f"bad number or literal {text!r}", where) from None
