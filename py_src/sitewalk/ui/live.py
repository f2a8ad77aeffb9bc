"""One view's generative-UI screen across render_ui calls, from either stream source.

Glue of the pure parts, for the session and the browser renderer: `CurrentSpec` picks which
call owns the screen, a `SpecStream` per call parses its argument fragments incrementally (or a
`PatchStream` its JSON-patch lines), and `ProgressiveScreen` decides what is shown. Only the
current call's progress reaches the screen; a stream that breaks (arguments that are not
JSON, a bad patch line) leaves the last good screen and issues, never an exception.

    live = LiveScreen()
    if live.fragment(candidate, '{"root":"ca'):   # True: live.shown changed, re-render
        view.show(live.shown)
    live.complete(candidate, args)                 # the server's final args: validate

A bad patch line ends its stream at once: the screen goes back to the last good one with the
issue, and the rest of that stream is ignored (the server refuses the same spec).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

from sitewalk_shared.ui_spec.patch_stream import PatchStream
from sitewalk_shared.ui_spec.validate import Issue

from .current import CurrentSpec, SpecCandidate
from .partial_json import PartialJsonError
from .progressive import ProgressiveScreen
from .spec_stream import SpecStream

__all__ = ["LiveScreen"]


class LiveScreen:
    def __init__(self) -> None:
        self.current = CurrentSpec()
        self.screen = ProgressiveScreen()
        self._streams: dict[tuple[str, int], SpecStream | PatchStream] = {}
        self._failed: set[tuple[str, int]] = set()
        self._behind: tuple[str, int] | None = None  # the current stream has progress not yet shown

    @property
    def shown(self) -> dict[str, object] | None:
        """What to render now. Worked out when read, not per fragment: the screen filter walks the
        whole spec, so reading it once per frame keeps a long stream's total work linear."""
        self._catch_up()
        return self.screen.shown

    @property
    def issues(self) -> list[Issue]:
        self._catch_up()
        return self.screen.issues

    def fragment(self, candidate: SpecCandidate, text: str) -> bool:
        """More argument text of a render_ui call; True when `shown` may have changed (the text is parsed
        when `shown` is read: a frame's fragments in one parser call)."""
        return self._feed(candidate, text, SpecStream)

    def patch_lines(self, candidate: SpecCandidate, text: str, base: dict[str, object] | None = None) -> bool:
        """More JSON-patch lines for a spec; True when `shown` may have changed.

        `base` is the document the stream's first line applies to (the screen on record; an
        empty spec when None). It is copied, never changed.
        """
        return self._feed(candidate, text, lambda: PatchStream(copy.deepcopy(base) if base is not None else None))

    def complete(self, candidate: SpecCandidate, spec: Mapping[str, object] | None = None) -> list[Issue]:
        """The call's spec is final (given, or what its stream built): validate and show or keep."""
        key = (candidate.tool_call_id, candidate.revision)
        stream = self._streams.pop(key, None)
        if self._behind == key:
            self._behind = None  # the final spec supersedes the progress not yet shown
        if spec is None and stream is not None and key not in self._failed:
            spec = self._final_of(stream, key)
        if not self._owns(candidate):
            return []
        if spec is None:
            return self.screen.issues  # the stream failed and said so
        if isinstance(stream, PatchStream) and stream.issues:
            # a bad last line (no newline before the end) is found only at close: same as above
            self._fail(key, True, *stream.issues)
            return self.screen.issues
        if not self.screen.streaming or self.screen.identity != candidate.identity():
            self.screen.begin(candidate.identity())
        return self.screen.finish(spec)

    # -----------------------------------------------------------------------------------------

    def _owns(self, candidate: SpecCandidate) -> bool:
        if self.current.offer(candidate):
            self.screen.begin(candidate.identity())
        return self.current.is_current(candidate.tool_call_id, candidate.revision)

    def _feed(self, candidate: SpecCandidate, text: str,
              new_stream: Callable[[], SpecStream | PatchStream]) -> bool:
        key = (candidate.tool_call_id, candidate.revision)
        if key in self._failed:
            return False
        stream = self._streams.get(key)
        if stream is None:
            stream = self._streams[key] = new_stream()
        owns = self._owns(candidate)
        if isinstance(stream, SpecStream):
            stream.append(text)  # parsed when the screen is read (`_catch_up`), once a frame
            if not owns:
                return False
        else:
            applied = stream.applied
            bad = stream.feed(text)
            if bad:  # the spec can no longer be what the agent meant: back to the last good screen
                return self._fail(key, owns, *bad)
            if not owns or stream.applied == applied:
                return False
            self.screen.forget(stream.take_touched())  # elements an op changed in place
        self._behind = key
        return True

    def _catch_up(self) -> None:
        """Show the current stream's progress (see `shown`)."""
        key, self._behind = self._behind, None
        stream = self._streams.get(key) if key is not None else None
        if stream is None or key is None:
            return
        if isinstance(stream, SpecStream):
            try:
                progress = stream.take()
            except PartialJsonError as exc:
                self._fail(key, True, _not_json(exc))
                return
            if progress.changed:
                self.screen.update(stream.spec, stream.complete, stream.settled)
        else:
            complete = stream.complete()
            self.screen.update(stream.spec, complete, complete)

    def _final_of(self, stream: SpecStream | PatchStream, key: tuple[str, int]) -> dict[str, object] | None:
        if isinstance(stream, PatchStream):
            stream.close()
            return stream.spec
        try:
            stream.take()  # the text not yet parsed: an error in it is bad JSON, not an early end
        except PartialJsonError as exc:
            self._fail(key, True, _not_json(exc))
            return None
        try:
            value = stream.close()
        except PartialJsonError as exc:
            self._fail(key, True, Issue("invalid_shape", None, f"the arguments ended early: {exc}",
                                        "Send the whole spec as one JSON object."))
            return None
        return value if isinstance(value, dict) else None

    def _fail(self, key: tuple[str, int], owns: bool, *issues: Issue) -> bool:
        self._failed.add(key)
        self._streams.pop(key, None)
        if self._behind == key:
            self._behind = None
        if owns:
            before = self.screen.shown
            self.screen.fail(*issues)
            return self.screen.shown != before
        return False


def _not_json(exc: PartialJsonError) -> Issue:
    return Issue("invalid_shape", None, f"the arguments are not JSON: {exc}", "Send the spec as one JSON object.")
