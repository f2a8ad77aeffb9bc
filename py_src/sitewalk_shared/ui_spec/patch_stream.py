"""JSON-patch line streams (RFC 6902, json-render's stream style): one patch op a line.

    {"op":"add","path":"/root","value":"card"}
    {"op":"add","path":"/elements/card","value":{"type":"InspectionCard","props":{...}}}

Ops are applied with the maintained `jsonpatch` library, in place (each op costs what it
touches, not the document), but copy-on-write per element: reading `spec` hands the document out
(a screen shown keeps references into it), and the next op below an element first copies that
element. So what was read stays as it was: an `add .../findings/-` after a screen was shown does
not change that screen behind its back (it would then look unchanged to every later comparison,
and never be drawn). Lines are split incrementally; only the unfinished last line is
kept. As in json-render, a line that does not start with `{` is not a patch (prose, a code
fence) and is skipped (`skipped` counts them). A bad patch line (not JSON, not an op, a path
that does not resolve, a failed `test`) becomes an `invalid_patch` issue and is skipped: the
document stays as it was before that line. Unlike json-render, missing parents are not
created: RFC 6902 `add` needs the parent to exist.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping

import jsonpatch
import jsonpointer

from .validate import Issue

__all__ = ["PatchStream", "empty_spec"]

_MAX_LINE = 1_000_000
_OPS = {"add", "remove", "replace", "move", "copy", "test"}


def empty_spec() -> dict[str, object]:
    """The document a patch stream starts from (json-render's empty spec)."""
    return {"root": "", "elements": {}}


class PatchStream:
    """Feed text; read `spec` (the document), `issues`, `complete()`."""

    def __init__(self, spec: dict[str, object] | None = None) -> None:
        self._spec: dict[str, object] = spec if spec is not None else empty_spec()
        self._own: set[str] = set()  # elements copied since `spec` was last read: safe to change in place
        self.issues: list[Issue] = []
        self.applied = 0  # ops applied
        self.skipped = 0  # non-empty lines that were not patches
        self.line_no = 0
        self._tail: list[str] = []
        self._tail_len = 0
        self._touched: set[str] | None = set()  # elements changed since take_touched() (None: maybe all)

    @property
    def spec(self) -> dict[str, object]:
        """The document so far. Whoever reads it may keep it: later ops leave what was read unchanged."""
        self._own.clear()
        return self._spec

    def feed(self, text: str) -> list[Issue]:
        """Apply every complete line in `text`; return the issues of this fragment."""
        issues: list[Issue] = []
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                break
            piece = text[start:newline]
            line = "".join(self._tail) + piece if self._tail else piece
            self._tail, self._tail_len = [], 0
            self._line(line, issues)
            start = newline + 1
        if start < len(text):
            self._tail.append(text[start:])
            self._tail_len += len(text) - start
            if self._tail_len > _MAX_LINE:
                self._tail, self._tail_len = [], 0
                issues.append(self._issue(None, "a patch line is over 1 MB", "Send one op a line."))
        self.issues.extend(issues)
        return issues

    def close(self) -> list[Issue]:
        """End of stream: apply a last line without a newline; return its issues."""
        issues: list[Issue] = []
        if self._tail:
            line = "".join(self._tail)
            self._tail, self._tail_len = [], 0
            self._line(line, issues)
        self.issues.extend(issues)
        return issues

    def complete(self) -> dict[str, None]:
        """Elements that can render (a set, in order): a patch value is whole, so every element with a type."""
        elements = self._spec.get("elements")
        if not isinstance(elements, dict):
            return {}
        return {k: None for k, v in elements.items() if isinstance(v, dict) and isinstance(v.get("type"), str)
                and isinstance(v.get("props", {}), dict)}

    def take_touched(self) -> set[str] | None:
        """The elements ops changed since the last call (None: an op replaced more than one element)."""
        touched, self._touched = self._touched, set()
        return touched

    # -----------------------------------------------------------------------------------------

    def _line(self, line: str, issues: list[Issue]) -> None:
        self.line_no += 1
        line = line.strip()
        if not line.startswith("{"):
            self.skipped += bool(line)
            return
        try:
            op = json.loads(line)
        except ValueError as exc:
            issues.append(self._issue(None, f"line {self.line_no} is not JSON: {exc}",
                                      "Send one JSON patch op object a line."))
            return
        if not isinstance(op, dict) or op.get("op") not in _OPS or not isinstance(op.get("path"), str):
            issues.append(self._issue(None, f"line {self.line_no} is not a JSON patch op",
                                      'Send {"op": "add"|"replace"|"remove"|..., "path": "/...", ...}.'))
            return
        element = _element_of(op["path"])
        try:
            if op["op"] in ("move", "copy"):
                # these can touch two places: apply to a copy so a failure leaves no half-change
                self._spec = jsonpatch.apply_patch(copy.deepcopy(self._spec), [op], in_place=True)
                self._own.clear()
            else:
                self._copy_before_change(element, op)
                self._spec = jsonpatch.apply_patch(self._spec, [op], in_place=True)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, KeyError, IndexError,
                TypeError, ValueError) as exc:
            issues.append(self._issue(element, f"line {self.line_no}: {op['op']} {op['path']}: {str(exc)[:200]}",
                                      "Patch paths must exist (add the parent first); check 'test' values."))
            return
        self.applied += 1
        if element is None or op["op"] in ("move", "copy"):
            self._touched = None  # the root, the whole document, or two places at once
        elif self._touched is not None:
            self._touched.add(element)

    def _copy_before_change(self, element: str | None, op: Mapping[str, object]) -> None:
        """Copy-on-write: an op inside an element handed out (see `spec`) changes a copy of it."""
        elements = self._spec.get("elements")
        if element is None or element in self._own or op["op"] == "test" or not isinstance(elements, dict):
            return
        if str(op["path"]).count("/") > 2 and isinstance(elements.get(element), dict | list):
            elements[element] = copy.deepcopy(elements[element])
        self._own.add(element)  # a whole element put by the op is new too (its value was parsed for it)

    def _issue(self, element: str | None, message: str, repair: str) -> Issue:
        return Issue("invalid_patch", element, message, repair)


def _element_of(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "" and parts[1] == "elements":
        return parts[2].replace("~1", "/").replace("~0", "~")
    return None
