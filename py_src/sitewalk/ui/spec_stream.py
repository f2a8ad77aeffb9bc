"""Which elements of a streaming `render_ui` spec have arrived, fragment by fragment.

Wraps the incremental parser: an element is *complete* once its `type` string and its `props`
object are both closed (or the element object closed without props), and *settled* once its
`children` list is final. The progressive filter renders only complete elements and switches
to a new screen once the root and its children are there.

Only paths of up to three keys matter here (root, elements/<id>, elements/<id>/type|props|
children), so the parser defers containers three keys deep: a `props` object or a `children`
list is skimmed for its closing bracket and decoded in one `json` call, not token by token.
A syntax error inside one is raised when it closes, or by the feed after `spec` was read.

Coalesced: `append` only keeps a fragment; `take` parses what was appended since the last take in one
piece (the screen takes once a frame, `ui.live.LiveScreen`), so a fragment of 20 bytes costs a list append
and its share of one parser call over a frame's text, not a parser call of its own. `feed` is both at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .partial_json import PartialJsonParser, Path

__all__ = ["SpecProgress", "SpecStream"]


@dataclass(slots=True)  # one per fragment: slots make it cheap to create
class SpecProgress:
    """What one fragment changed."""

    completed: list[str] = field(default_factory=list)  # elements that became complete
    settled: list[str] = field(default_factory=list)  # elements whose children list closed
    root_changed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.completed or self.settled or self.root_changed)


class SpecStream:
    """Feed the argument text of one render_ui call; read `spec`, `complete`, `settled`."""

    def __init__(self) -> None:
        self.parser = PartialJsonParser(defer_depth=3)
        self.root: str | None = None
        self.complete: dict[str, None] = {}  # insertion-ordered set
        self.settled: set[str] = set()
        self._typed: set[str] = set()
        self._props: set[str] = set()
        self._pending: list[str] = []
        # Keep one fragment for the next `take` (nothing is parsed yet): the list's own append, so that a
        # fragment costs no Python call of its own.
        self.append: Callable[[str], None] = self._pending.append

    @property
    def spec(self) -> dict[str, object]:
        """The partially built spec (complete and incomplete elements alike) as of the last take."""
        value = self.parser.value
        return value if isinstance(value, dict) else {}

    @property
    def chars_scanned(self) -> int:
        return self.parser.chars_scanned

    def take(self) -> SpecProgress:
        """Parse what was appended since the last take; what it changed. Raises `PartialJsonError` (a
        ValueError) when it is not JSON."""
        progress = SpecProgress()
        if self._pending:
            text = "".join(self._pending) if len(self._pending) > 1 else self._pending[0]
            self._pending.clear()
            self._track(self.parser.feed(text), progress)
        return progress

    def feed(self, fragment: str) -> SpecProgress:
        """`append` and `take` at once: parse one fragment."""
        self.append(fragment)
        return self.take()

    def close(self) -> object:
        """The complete arguments; raises `PartialJsonError` if the stream ended early."""
        self.take()
        return self.parser.close()

    def _track(self, events: list[tuple[Path, object]], progress: SpecProgress) -> None:
        """The completed values of one take that matter: an element's members and the element itself (tested
        first, in this loop: two or three events an element), then the root (`_on_root`)."""
        typed, has_props, complete = self._typed, self._props, self.complete
        for path, value in events:
            if len(path) == 3 and path[0] == "elements":
                key, member = path[1], path[2]
                if not isinstance(key, str):
                    continue
                if member == "type":
                    if not isinstance(value, str):
                        continue
                    typed.add(key)
                elif member == "props":
                    has_props.add(key)
                else:
                    if member == "children":
                        self._settle(key, progress)
                    continue
            elif len(path) == 2 and path[0] == "elements" and isinstance(key := path[1], str):
                has_props.add(key)  # the element closed: missing props default to {}, children are final
                self._settle(key, progress)
            else:
                self._on_root(path, value, progress)
                continue
            if key in typed and key in has_props and key not in complete:
                complete[key] = None
                progress.completed.append(key)

    def _on_root(self, path: Path, value: object, progress: SpecProgress) -> None:
        if len(path) == 1 and path[0] == "root" and isinstance(value, str):
            self.root = value
            progress.root_changed = True

    def _settle(self, key: str, progress: SpecProgress) -> None:
        if key not in self.settled:
            self.settled.add(key)
            progress.settled.append(key)
