"""What a run's stream says of the screen, from its three sources, into one live screen and the view.

- a `render_ui` call's argument fragments (parsed incrementally as they stream), given as the
  tool-call pipeline's read-only views (`calls.view`: `CallView`, and `TextView` for the words), one per
  call or message a frame;
- JSON-patch lines in the agent's text (inline screens; the prose goes to the transcript);
- the server's `ui_spec` in `values` events (validated there; shown when it was not streamed
  here, or when it differs from what was built here: the server's word wins).

Pure: the view is any `ScreenView` (the session's `View` is one). A spec that fails validation
leaves the last good screen; the view gets its issues and its text as plain lines (`ui.screen_fallback`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from sitewalk_shared.ui_spec.inline import InlineSplitter
from sitewalk_shared.ui_spec.model import INLINE_SPEC, RENDER_UI_TOOL, Spec, inline_spec_call_id
from sitewalk_shared.ui_spec.validate import Issue

from .base import trace_hooks
from .base.frames import FrameGate
from .calls.view import CallView, TextView
from .ui.current import SpecCandidate
from .ui.live import LiveScreen
from .ui.screen_fallback import fallback_lines, patched_for_fallback

__all__ = ["PUSH_INTERVAL_S", "ScreenFeed", "ScreenView"]

PUSH_INTERVAL_S = 1 / 60  # a streaming screen is worked out and pushed at most once a frame


class ScreenView(Protocol):
    """What the feed shows: the transcript's words and the generative-UI screen."""

    def agent_text(self, message_id: str, text: str) -> None:
        """The prose of one agent message so far (patch lines taken out)."""

    def screen(self, spec: Mapping[str, object]) -> None:
        """The screen to render now (a validated spec, or a streaming one's good part)."""

    def screen_issues(self, issues: list[Issue], fallback: list[str]) -> None:
        """A spec failed validation: its issues, and its text as plain lines (the last good screen stays)."""


class ScreenFeed:
    def __init__(self, view: ScreenView) -> None:
        self.view = view
        self._frames = FrameGate(self._push_screen, PUSH_INTERVAL_S)  # a streaming screen: once a frame
        self.forget()

    def forget(self) -> None:
        """Forget every screen and message seen so far: the view is being drawn anew from a thread's state
        (a time-travel run starts from an earlier step), so the new run's messages and screens are new here
        (none dropped as already shown, none appended to an old message's words)."""
        self._frames.cancel()
        self._frames = FrameGate(self._push_screen, PUSH_INTERVAL_S)  # the next push is not held back
        self.live = LiveScreen()  # which spec owns the screen, and what of it can show
        self.spec_identity: dict[str, Any] | None = None  # the server's identity of the screen shown
        self._message_order: dict[str, int] = {}
        self._completed: set[str] = set()  # specs (call ids) whose final form was judged
        self._on_screen: dict[str, Any] | None = None
        self._on_record: dict[str, Any] | None = None  # the server's ui_spec, as last seen
        self._checked: set[tuple[str, int]] = set()  # server screens compared with the one built here
        self._texts: dict[str, _MessageProse] = {}  # message id -> its prose and inline patch lines

    def call(self, call: CallView) -> None:
        """A tool call's change; render_ui's new argument text goes to its own parser."""
        if call.name != RENDER_UI_TOOL:
            return
        candidate = self._candidate(call.message_id, call.index, call.call_id, RENDER_UI_TOOL)
        if call.delta and not (call.replaced and call.args is not None):  # whole final arguments: judged below
            self.live.fragment(candidate, call.delta)
        if call.args is not None:
            # The arguments are complete: validate the final spec (the server validates it again).
            self._finish(candidate, call.args)
        else:
            self._push_soon()

    def text(self, message: TextView) -> None:
        """The agent's words go to the transcript; patch lines among them build a screen inline."""
        entry = self._texts.setdefault(message.message_id, _MessageProse())
        patch = entry.feed(message)
        if entry.changed:
            self.view.agent_text(message.message_id, entry.prose)
        if not entry.splitter.patch_lines:
            return
        candidate = self._candidate(message.message_id, -1, inline_spec_call_id(message.message_id), INLINE_SPEC)
        if patch:
            self.live.patch_lines(candidate, patch, base=self._on_record)
        if message.done:
            self._finish(candidate, failed=lambda: patched_for_fallback(self._on_record, entry.patch))
        else:
            self._push_soon()

    def server_spec(self, ui_spec: object) -> None:
        """The server's stored screen (validated there)."""
        if not isinstance(ui_spec, dict):
            return
        self._on_record = ui_spec  # what the next inline patch lines apply to
        identity = ui_spec.get("identity") or {}
        call_id = str(identity.get("tool_call_id") or "")
        if not call_id:
            return
        if self.live.current.is_current(call_id):
            self.spec_identity = identity
        spec = {k: v for k, v in ui_spec.items() if k != "identity"}
        if call_id in self._completed:
            # Built here from the stream: the server's copy is the same unless the two started from
            # different screens (inline patches); then the server's word wins. Compared once.
            check = (call_id, int(identity.get("revision") or 0))
            if check in self._checked or not self.live.current.is_current(call_id):
                return
            self._checked.add(check)
            if _same_screen(self.live.screen.good, spec):
                return
            self._completed.discard(call_id)
        candidate = self._candidate(str(identity.get("message_id") or call_id), 0, call_id, RENDER_UI_TOOL)
        if not self._finish(candidate, spec) and self.live.current.is_current(call_id):
            self.spec_identity = identity

    # -----------------------------------------------------------------------------------------

    def _candidate(self, message_id: str, call_index: int, tool_call_id: str, tool_name: str) -> SpecCandidate:
        index = self._message_order.setdefault(message_id, len(self._message_order))
        return SpecCandidate(index, call_index, tool_name, tool_call_id, 0, message_id=message_id)

    def _finish(self, candidate: SpecCandidate, spec: Mapping[str, object] | None = None,
                failed: Callable[[], Any] | None = None) -> list[Issue]:
        """Judge a spec's final form once; invalid leaves the last good screen and shows the issues,
        with the failed spec's text (`spec`, or what `failed()` rebuilds of a stream's spec)."""
        if candidate.tool_call_id in self._completed:
            self._frames.now(always=True)
            return []
        self._completed.add(candidate.tool_call_id)
        with trace_hooks.span("device.screen", tool_call_id=candidate.tool_call_id, tool_name=candidate.tool_name,
                              spec_version=_revision(self.spec_identity, candidate.tool_call_id)) as traced:
            issues = self.live.complete(candidate, spec)
            self._frames.now(always=True)
            traced.screen(spec if spec is not None else self.live.shown, issues)
        if issues:
            self.view.screen_issues(issues, fallback_lines(spec if spec is not None or failed is None else failed()))
        return issues

    def _push_soon(self) -> None:
        """Progress of a streaming spec: pushed now if a frame has passed since the last push,
        else once it has (the stream may pause, so the last progress must not wait for more)."""
        self._frames.soon()

    def _push_screen(self) -> None:
        shown = self.live.shown
        if shown is not None and shown is not self._on_screen and shown != self._on_screen:
            self._on_screen = shown
            self.view.screen(shown)


class _MessageProse:
    """One message's text as it streams: its prose so far, and the patch lines split from it."""

    def __init__(self) -> None:
        self.splitter = InlineSplitter()
        self.prose = ""
        self.patch = ""  # every patch line so far (a failed screen's text is rebuilt from them)
        self.changed = False
        self._closed = False

    def feed(self, message: TextView) -> str:
        """Take the message's new text; return the patch text among it."""
        prose, patch = [], []
        if message.delta:
            words, ops = self.splitter.feed(message.delta)
            prose.append(words)
            patch.append(ops)
        if message.done and not self._closed:
            self._closed = True
            prose.append(self.splitter.close())
        added = "".join(prose)
        self.prose += added
        self.changed = bool(added) and bool(self.prose.strip())  # no empty paragraph for a patch-only reply
        self.patch += "".join(patch)
        return "".join(patch)


def _revision(identity: Mapping[str, Any] | None, tool_call_id: str) -> int | None:
    """The server's revision of the screen a call drew (its spec version), when the server has named it."""
    if not identity or identity.get("tool_call_id") != tool_call_id:
        return None
    revision = identity.get("revision")
    return revision if isinstance(revision, int) else None


def _same_screen(a: object, b: object) -> bool:
    """The same spec once both have their defaults (children, props) filled in."""
    try:
        return Spec.model_validate(a).model_dump(mode="json") == Spec.model_validate(b).model_dump(mode="json")
    except ValueError:  # pydantic's ValidationError is a ValueError
        return False
