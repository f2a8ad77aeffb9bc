"""A response body as the client reads it, for every transport."""

from __future__ import annotations

import json

__all__ = ["parse_body"]


def parse_body(text: str) -> object:
    """JSON if it parses, else the text itself (error pages are not always JSON); None when empty: the
    caller checks which before reading it."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
