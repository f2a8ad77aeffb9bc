"""The generative-UI spec, shared by the agent server and the browser (no jinja2, no `js`).

Modules, one concern each: model (the spec's pydantic structure, identity, and `record_screen`,
the one place a validated screen gets its identity and revision), validate (issues with codes
and repairs against the catalog), patch_stream (RFC 6902 line streams), inline (screens written
as patch lines in the agent's text).
"""

from .inline import InlineSplitter, apply_inline_spec, split_inline
from .model import (
    INLINE_SPEC,
    RENDER_UI_TOOL,
    Element,
    RenderUiArgs,
    Spec,
    SpecIdentity,
    inline_spec_call_id,
    record_screen,
)
from .patch_stream import PatchStream, empty_spec
from .validate import MAX_DEPTH, MAX_ELEMENTS, Issue, IssueCode, validate_spec

__all__ = [
    "INLINE_SPEC",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "RENDER_UI_TOOL",
    "Element",
    "InlineSplitter",
    "Issue",
    "IssueCode",
    "PatchStream",
    "RenderUiArgs",
    "Spec",
    "SpecIdentity",
    "apply_inline_spec",
    "empty_spec",
    "inline_spec_call_id",
    "record_screen",
    "split_inline",
    "validate_spec",
]
