"""The server's side of inline screens: JSON-patch lines in the agent's own text.

The browser applies the same lines as they stream (`sitewalk_shared.ui_spec.inline`); here the whole
message is applied once to the screen on record and validated with the same catalog. A valid
result becomes the new `ui_spec`, named after the message; a bad line or an invalid result
leaves `ui_spec` as it was, records the issues in `ui_issues`, and gives the model a refusal
notice with each issue's repair text (as render_ui's tool message does), so it can send the
screen again — at most MAX_REPAIRS times in a row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from sitewalk_shared.ui_spec.inline import apply_inline_spec
from sitewalk_shared.ui_spec.model import inline_spec_call_id, record_screen

__all__ = ["MAX_REPAIRS", "REFUSAL_NAME", "inline_ui_update", "is_refusal"]

REFUSAL_NAME = "sitewalk_ui"  # the author of a refusal notice (not the inspector)
MAX_REPAIRS = 2  # refusals in a row after which the model is not asked again


def inline_ui_update(message: AIMessage, on_record: Mapping[str, object] | None,
                     history: Sequence[BaseMessage] = ()) -> dict[str, object]:
    """The state update for a message's inline screen: {} when the message writes none.

    `history` is the conversation before `message`, to count the refusals in a row.
    """
    applied = apply_inline_spec(str(message.text), on_record)  # text blocks only, as the browser streams
    if applied is None:
        return {}
    spec, issues = applied
    if issues:
        found = [issue.to_dict() for issue in issues]
        update: dict[str, object] = {"ui_issues": found}
        if _refusals_in_a_row(history) < MAX_REPAIRS:
            update["messages"] = [_refusal(found)]
        return update
    message_id = str(message.id)
    ui_spec = record_screen(spec, on_record, message_id=message_id, tool_call_id=inline_spec_call_id(message_id))
    return {"ui_spec": ui_spec, "ui_issues": []}


def is_refusal(message: object) -> bool:
    return isinstance(message, HumanMessage) and message.name == REFUSAL_NAME


def _refusal(issues: list[dict[str, object]]) -> HumanMessage:
    return HumanMessage(
        name=REFUSAL_NAME,
        content="The screen in your last reply was refused and the screen on record stays. Issues "
                "(code, element, message, repair): " + json.dumps(issues, ensure_ascii=False, separators=(",", ":"))
                + " Send the patch lines again, fixed, or call render_ui with the whole spec.",
    )


def _refusals_in_a_row(history: Sequence[BaseMessage]) -> int:
    """Refusal notices since the inspector last spoke or a tool answered (each follows an AI reply)."""
    count = 0
    for message in reversed(history):
        if is_refusal(message):
            count += 1
        elif not isinstance(message, AIMessage):
            break
    return count
