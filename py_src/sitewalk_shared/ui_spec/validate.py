"""Validate a UI spec against the catalog, returning every issue rather than the first exception.

Each issue has a machine code (`IssueCode`), the element id it concerns and a short repair text
that can be handed back to the model. This is the one place that decides whether a spec is
valid: a spec without issues also fits the structural model (`sitewalk_shared.ui_spec.model.Spec`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

from pydantic import ValidationError

from ..contracts.catalog import ACCEPTS_CHILDREN, CATALOG

MAX_ELEMENTS = 2000
MAX_DEPTH = 24
_ELEMENT_KEYS = frozenset({"type", "props", "children"})
_SPEC_KEYS = frozenset({"root", "elements"})
_SHAPE_REPAIR = "Send {\"root\": id, \"elements\": {id: {\"type\", \"props\", \"children\"}}}."

IssueCode = Literal[
    "invalid_shape",  # not the spec / element structure
    "too_large",  # more than MAX_ELEMENTS elements
    "missing_root",  # the root names no element
    "unknown_type",  # a type outside the catalog
    "invalid_props",  # props that do not fit the component's model (or children where none go)
    "missing_child",  # a child id that names no element
    "cycle",  # an element that is its own ancestor
    "orphan",  # an element the root does not reach
    "too_deep",  # nesting deeper than MAX_DEPTH
    "invalid_patch",  # a JSON-patch line that could not be applied (sitewalk_shared.ui_spec.patch_stream)
]


@dataclass(frozen=True)
class Issue:
    code: IssueCode
    element: str | None
    message: str
    repair: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def validate_spec(spec: object) -> list[Issue]:
    """Every issue of `spec` ({root, elements}); empty means valid."""
    if not isinstance(spec, dict) or not isinstance(spec.get("elements"), dict):
        return [Issue("invalid_shape", None, "a spec is an object with 'root' and 'elements'", _SHAPE_REPAIR)]
    elements: dict[str, object] = spec["elements"]
    issues: list[Issue] = []
    extra = sorted(map(str, set(spec) - _SPEC_KEYS))
    if extra:
        issues.append(Issue("invalid_shape", None, f"unsupported spec fields: {', '.join(extra)}", _SHAPE_REPAIR))
    if len(elements) > MAX_ELEMENTS:
        issues.append(Issue("too_large", None, f"{len(elements)} elements, over the limit of {MAX_ELEMENTS}",
                            "Split the screen or summarise; send fewer elements."))
    for key, element in elements.items():
        issues.extend(_element_issues(key, element, elements))
    root = spec.get("root")
    if not isinstance(root, str) or root not in elements:
        issues.append(Issue("missing_root", root if isinstance(root, str) else None,
                            f"root {root!r} is not an element id", "Set 'root' to the id of an element you sent."))
        return issues
    issues.extend(_tree_issues(root, elements))
    return issues


def _element_issues(key: str, element: object, elements: Mapping[str, object]) -> list[Issue]:
    if not isinstance(element, dict) or not isinstance(element.get("type"), str):
        return [Issue("invalid_shape", key, "an element is an object with a string 'type'",
                      "Give the element a 'type' from the catalog, 'props' and 'children'.")]
    extra = sorted(set(element) - _ELEMENT_KEYS)
    if extra:  # e.g. json-render's visible/on/repeat: not supported here, never silently ignored
        return [Issue("invalid_shape", key, f"unsupported element fields: {', '.join(map(str, extra))}",
                      "An element has only 'type', 'props' and 'children'.")]
    kind = element["type"]
    model = CATALOG.get(kind)
    if model is None:
        return [Issue("unknown_type", key, f"{kind!r} is not in the catalog",
                      f"Use one of: {', '.join(sorted(CATALOG))}.")]
    props = element.get("props", {})
    if not isinstance(props, dict):
        return [Issue("invalid_shape", key, "'props' must be an object", f"Send the props of {key} as an object.")]
    issues: list[Issue] = []
    try:
        model.model_validate(props)
    except ValidationError as exc:
        for err in exc.errors()[:10]:
            field = ".".join(map(str, err["loc"])) or "props"
            issues.append(Issue("invalid_props", key, f"{kind}.{field}: {err['msg']}",
                                f"Fix prop '{field}' of {key} to match the {kind} schema."))
    children = element.get("children", [])
    if not isinstance(children, list) or not all(isinstance(c, str) for c in children):
        issues.append(Issue("invalid_shape", key, "'children' must be a list of element ids",
                            "List child ids as strings."))
        return issues
    if children and kind not in ACCEPTS_CHILDREN:
        issues.append(Issue("invalid_props", key, f"{kind} takes no children",
                            f"Move the children of {key} into a Stack, a Row or an InspectionCard."))
    for child in children:
        if child not in elements:
            issues.append(Issue("missing_child", key, f"child {child!r} of {key} is not an element",
                                f"Send element {child!r} or remove it from {key}.children."))
    return issues


def _tree_issues(root: str, elements: Mapping[str, object]) -> list[Issue]:
    """Walk from the root once: cycles, depth, and elements nothing reaches."""
    issues: list[Issue] = []
    reached: set[str] = set()
    # iterative DFS with the current path, so deep specs do not hit the recursion limit
    stack: list[tuple[str, int, tuple[str, ...]]] = [(root, 1, ())]
    too_deep_reported = False
    while stack:
        key, depth, path = stack.pop()
        if key in path:
            issues.append(Issue("cycle", key, f"{key} is its own ancestor ({' > '.join(path + (key,))})",
                                f"Remove {key} from the children of {path[-1]}."))
            continue
        if depth > MAX_DEPTH and not too_deep_reported:
            too_deep_reported = True
            issues.append(Issue("too_deep", key, f"nesting is deeper than {MAX_DEPTH}", "Flatten the layout."))
        if key in reached:
            continue  # shared child: fine, render it once per parent
        reached.add(key)
        element = elements.get(key)
        children = element.get("children") if isinstance(element, dict) else None
        for child in reversed(children if isinstance(children, list) else []):
            if isinstance(child, str) and child in elements:
                stack.append((child, depth + 1, path + (key,)))
    for key in elements:
        if key not in reached:
            issues.append(Issue("orphan", key, f"{key} is not reachable from the root {root}",
                                f"Add {key} to a parent's children or drop it."))
    return issues
