"""The server's side of inline screens: JSON-patch lines in the agent's own text.

The browser applies the same lines as they stream (`sitewalk.ui.inline_spec`); here the whole
message is applied once to the screen on record and validated with the same catalog. A valid
result becomes the new `ui_spec`, named after the message; a bad line or an invalid result
leaves `ui_spec` as it was and records the issues in `ui_issues`.
"""

from __future__ import annotations

from typing import Any, Optional

from langchain_core.messages import AIMessage

from sitewalk.contracts.spec import Spec
from sitewalk.ui.inline_spec import apply_inline_spec, inline_identity

__all__ = ["inline_ui_update"]


def inline_ui_update(message: AIMessage, on_record: Optional[dict[str, Any]]) -> dict[str, Any]:
    """The state update for a message's inline screen: {} when the message writes none."""
    applied = apply_inline_spec(_text(message), on_record)
    if applied is None:
        return {}
    spec, issues = applied
    if issues:
        return {"ui_issues": [issue.to_dict() for issue in issues]}
    revision = int(((on_record or {}).get("identity") or {}).get("revision", 0)) + 1
    spec = Spec.model_validate(spec).model_dump(mode="json")  # the shape render_ui stores
    return {"ui_spec": {"root": spec["root"], "elements": spec["elements"],
                        "identity": inline_identity(str(message.id), revision)},
            "ui_issues": []}


def _text(message: AIMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block if isinstance(block, str) else str(block.get("text", ""))
                   for block in content if isinstance(block, str) or block.get("type") == "text")
