"""An incremental Server-Sent Events decoder (WHATWG event-stream interpretation).

Feed it text as it arrives, in chunks of any size; it returns the events completed by that
chunk. It keeps only the unfinished tail (as a list of pieces, joined once when the line ends),
so each character is looked at a constant number of times: decoding is linear in the stream
length however the stream is cut.

Handled: CRLF, LF and CR line endings (a CR that ends one chunk and the LF that starts the next
count as one ending), a leading BOM, comments (`: heartbeat`), fields without a colon,
multi-line `data`, `id` before or after `data`, `retry`, and one leading space stripped from
a value (only one).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SSEDecoder", "ServerSentEvent"]


@dataclass(frozen=True)
class ServerSentEvent:
    event: str
    """The `event:` field; "message" when the server sent none."""
    data: str
    """The `data:` lines joined with "\\n" (not parsed)."""
    id: str | None = None
    """The last event id seen so far in the stream (ids persist across events, per the spec)."""
    retry: int | None = None
    """A `retry:` reconnection time in ms, if this event carried one."""


class SSEDecoder:
    def __init__(self, *, last_event_id: str | None = None) -> None:
        self._tail: list[str] = []  # pieces of the current unfinished line
        self._skip_lf = False  # the previous chunk ended in CR: an LF first in the next is its pair
        self._at_start = True
        self._event = ""
        self._data: list[str] = []
        self._has_fields = False
        self._retry: int | None = None
        self.last_event_id = last_event_id
        self.comments = 0
        """How many comment lines (e.g. heartbeats) were seen."""

    def feed(self, text: str) -> list[ServerSentEvent]:
        """Decode the next chunk; return the events it completes."""
        out: list[ServerSentEvent] = []
        if not text:
            return out
        start = 0
        n = len(text)
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                start = 1
        # Next CR and LF at or after `start`; each is searched for again only once passed, so a
        # chunk is scanned a constant number of times.
        cr = text.find("\r", start)
        lf = text.find("\n", start)
        while start < n:
            if 0 <= cr < start:
                cr = text.find("\r", start)
            if 0 <= lf < start:
                lf = text.find("\n", start)
            if cr < 0 and lf < 0:
                self._tail.append(text[start:])
                break
            if cr < 0 or (0 <= lf < cr):
                end, nxt = lf, lf + 1
            else:
                end = cr
                if cr + 1 < n:
                    nxt = cr + 2 if text[cr + 1] == "\n" else cr + 1
                else:
                    nxt = cr + 1
                    self._skip_lf = True
            if self._tail:
                self._tail.append(text[start:end])
                line = "".join(self._tail)
                self._tail = []
            else:
                line = text[start:end]
            self._line(line, out)
            start = nxt
        return out

    def close(self) -> list[ServerSentEvent]:
        """End of stream: an unterminated last line is read, and an event still open is dispatched.

        (The spec discards an event cut off by the end of the stream; servers that omit the final
        blank line are common enough that Sitewalk is lenient. A truncated JSON payload still
        fails where it is parsed.)
        """
        out: list[ServerSentEvent] = []
        if self._tail:
            line = "".join(self._tail)
            self._tail = []
            self._line(line, out)
        self._line("", out)
        self._skip_lf = False
        return out

    # -- internals -------------------------------------------------------------------------

    def _line(self, line: str, out: list[ServerSentEvent]) -> None:
        if self._at_start:
            self._at_start = False
            if line.startswith("\ufeff"):
                line = line[1:]
        if not line:
            self._dispatch(out)
        elif line[0] == ":":
            self.comments += 1
        else:
            self._field(*_split_field(line))

    def _dispatch(self, out: list[ServerSentEvent]) -> None:
        """A blank line: emit the event gathered so far (if any) and start a new one."""
        if self._data or self._event:
            out.append(
                ServerSentEvent(
                    event=self._event or "message",
                    data="\n".join(self._data),
                    id=self.last_event_id,
                    retry=self._retry,
                )
            )
        self._event = ""
        self._data = []
        self._retry = None

    def _field(self, field: str, value: str) -> None:
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id":
            if "\x00" not in value:
                self.last_event_id = value
        elif field == "retry":
            if value.isdigit():
                self._retry = int(value)
        # unknown fields are ignored, per the spec


def _split_field(line: str) -> tuple[str, str]:
    """`name: value` -> (name, value), one leading space of the value dropped; no colon -> (line, "")."""
    colon = line.find(":")
    if colon < 0:
        return line, ""
    value = line[colon + 1 :]
    if value[:1] == " ":
        value = value[1:]
    return line[:colon], value
