"""The progressive filter: what to show while a spec streams in, and after it ends.

`renderable()` keeps only the complete elements reachable from the root (known type, props
that validate), with children lists cut to what can render, no cycles and bounded depth, so
the result always renders. `ProgressiveScreen` decides when a new spec takes over the screen:
the last valid screen stays until the new root and the children it lists have arrived; a
final spec that fails validation leaves the last good screen and the issues.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from pydantic import ValidationError

from sitewalk_shared.contracts.catalog import ACCEPTS_CHILDREN, CATALOG
from sitewalk_shared.ui_spec.validate import MAX_DEPTH, Issue, validate_spec

__all__ = ["ElementChecks", "ProgressiveScreen", "renderable", "root_ready"]


def _element_ok(element: object) -> bool:
    if not isinstance(element, dict):
        return False
    model = CATALOG.get(element.get("type"))  # type: ignore[arg-type]
    if model is None:
        return False
    try:
        model.model_validate(element.get("props") or {})
    except ValidationError:
        return False
    return True


class ElementChecks:
    """`_element_ok` with a memory: an element is validated again only when its type or its props
    object changed, or after `forget` (a patch changed its props in place). Streams re-read the
    screen many times; validating every element each time would make the total work quadratic."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[object, object, bool]] = {}  # key -> (type, props object, ok)

    def __call__(self, key: str, element: object) -> bool:
        if not isinstance(element, dict):
            return False
        kind, props = element.get("type"), element.get("props")
        seen = self._seen.get(key)
        if seen is not None and seen[0] == kind and seen[1] is props:  # `is`: kept alive, so never reused
            return seen[2]
        ok = _element_ok(element)
        self._seen[key] = (kind, props, ok)
        return ok

    def forget(self, keys: Collection[str] | None) -> None:
        """Keys whose props may have changed in place (None: all of them)."""
        if keys is None:
            self._seen.clear()
        else:
            for key in keys:
                self._seen.pop(key, None)


def renderable(partial: object, complete: Collection[str],
               element_ok: Callable[[str, object], bool] | None = None) -> dict[str, object] | None:
    """The renderable part of a partial spec, or None while its root cannot render."""
    check = element_ok or (lambda _key, element: _element_ok(element))
    if not isinstance(partial, dict) or not isinstance(partial.get("elements"), dict):
        return None
    root, elements = partial.get("root"), partial["elements"]
    if not isinstance(root, str) or root not in complete or not check(root, elements.get(root)):
        return None
    out: dict[str, object] = {}
    ok: dict[str, bool] = {}

    def usable(key: object) -> bool:
        if not isinstance(key, str) or key not in complete or key not in elements:
            return False
        if key not in ok:
            ok[key] = check(key, elements[key])
        return ok[key]

    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        key, ancestors = stack.pop()
        if key in out:
            continue
        element = elements[key]
        kids = element.get("children")
        children: list[str] = []
        if element["type"] in ACCEPTS_CHILDREN and isinstance(kids, list) and len(ancestors) + 1 < MAX_DEPTH:
            path = ancestors + (key,)
            children = [c for c in kids if usable(c) and c not in path]
            stack.extend((c, path) for c in reversed(children))
        out[key] = {"type": element["type"], "props": dict(element.get("props") or {}), "children": children}
    return {"root": root, "elements": out}


def root_ready(partial: object, complete: Collection[str], settled: Collection[str]) -> bool:
    """The new root is complete, its children list is final, and every child it lists arrived."""
    if not isinstance(partial, dict) or not isinstance(partial.get("elements"), dict):
        return False
    root = partial.get("root")
    if not isinstance(root, str) or root not in complete or root not in settled:
        return False
    element = partial["elements"].get(root)
    kids = element.get("children") if isinstance(element, dict) else None
    return all(isinstance(c, str) and c in complete for c in (kids or []))


class ProgressiveScreen:
    """The screen of one view across specs: `shown` is what to render now.

    begin() a new spec, update() with its partial state as it streams, finish() with the
    final spec. `good` is the last spec that passed validation; `issues` those of the last
    finished spec.
    """

    def __init__(self, validate: Callable[[object], list[Issue]] = validate_spec) -> None:
        self.validate = validate
        self.shown: dict[str, object] | None = None
        self.good: dict[str, object] | None = None
        self.identity: dict[str, object] | None = None  # of the spec being shown or streamed
        self.issues: list[Issue] = []
        self.streaming = False
        self._switched = False  # the streaming spec has taken over the screen
        self._checks = ElementChecks()

    def begin(self, identity: dict[str, object] | None = None) -> None:
        self.identity = identity
        self.streaming = True
        self._switched = False
        self.issues = []
        self._checks = ElementChecks()  # a new spec: nothing to remember from the last one

    def update(self, partial: object, complete: Collection[str], settled: Collection[str]) -> bool:
        """A new partial state; True when `shown` changed."""
        if not self.streaming:
            self.begin(self.identity)
        if not self._switched:
            if not root_ready(partial, complete, settled):
                return False  # the last valid screen stays
        candidate = renderable(partial, complete, self._checks)
        if candidate is None or candidate == self.shown:
            return False
        self._switched = True
        self.shown = candidate
        return True

    def forget(self, keys: Collection[str] | None) -> None:
        """Elements whose props changed in place since the last update (None: any of them)."""
        self._checks.forget(keys)

    def finish(self, final: object) -> list[Issue]:
        """The spec is complete: validate it; invalid leaves the last good screen. Returns issues."""
        self.streaming = False
        self._switched = False
        spec = {k: v for k, v in final.items() if k != "identity"} if isinstance(final, dict) else final
        self.issues = self.validate(spec)
        if self.issues or not isinstance(spec, dict):  # a spec that passes is an object
            self.shown = self.good
        else:
            self.shown = self.good = spec
        return self.issues

    def fail(self, *issues: Issue) -> None:
        """The stream itself broke (not JSON, a bad patch): keep the last good screen."""
        self.streaming = False
        self._switched = False
        self.issues = list(issues)
        self.shown = self.good
