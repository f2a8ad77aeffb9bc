"""A response body as the client reads it, for every transport."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_body"]


def parse_body(text: str) -> Any:
    """JSON if it parses, else the text itself (error pages are not always JSON); None when empty."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
