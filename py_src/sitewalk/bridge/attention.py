"""When the page may move the inspector's focus: the rule, free of the browser so it is tested under CPython.

Something that waits for the inspector (a question, a review, a new screen) comes into view and takes
the focus, except from a text field that holds what the inspector is typing: moving them away would
lose their place, and the next keystroke would land nowhere.
"""

from __future__ import annotations

__all__ = ["is_typing"]

# <input> types that take typed text (an absent type attribute is "text").
TEXT_INPUTS = frozenset({"", "text", "search", "number", "email", "tel", "url", "password"})


def is_typing(tag: str, input_type: str, value: str, editable: bool = False) -> bool:
    """Whether the focused element (its tag, its type attribute, its value) holds text being typed."""
    if editable:
        return True
    tag = tag.lower()
    if tag == "textarea" or (tag == "input" and input_type.lower() in TEXT_INPUTS):
        return value != ""
    return False
